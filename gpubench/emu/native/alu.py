"""Native handlers for the SALU and VALU instructions whose semantics are compiled pseudocode.

The element semantics are the pseudocode compiler's own (`ElementSemantics`: the numpy backend's
typed program, lowered to LLVM IR); around them a handler reads each port from where the reference
engine binds it (ops/alu.py, ops/valu.py: the same `operands_of`), for one wave: a VALU handler runs
its lanes in a loop and writes vector results to the lanes EXEC enables, lane-bit results (compares,
carries) as a whole mask after the loop, with 0 in the disabled lanes, as the reference does. The
lowering shapes the loop (`emit_lanes`): semantics that call numpy's loops (transcendentals) get one
more pass over the lanes per call, the call made once per wave over all its lanes, as the reference
engine calls it over all the lanes of its waves (EXEC chooses which results are written). A mix
(v_fma_mixlo/hi) writes its whole VGPR: its pseudocode places the f16 half and keeps the other, read as
D0. clamp of a float result saturates it to [0, 1] on its bits (each half of a packed f16, a mix's half).
A CDNA 16-bit result in the low half clears the high half (isa/corrections.py's zero-high-half rule).
SDWA (CDNA) selects a byte or word of each source, zero- or sign-extended, and places the result's low
bits at dst_sel, the other bits 0, its sign or the VGPR's own (dst_unused), as ops/valu.py does.

What the native handlers do not do yet is left to the reference engine, decided once per instruction
when it is bound (the binder returns None): DPP, omod, clamp of integer and BF16 results, v_swap's
second destination. Float operations check MODE when they run and give the instruction to the
reference engine in a wave whose round or denormal mode is not the default.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from gpubench.compiler.native.lower import ElementSemantics, emit_lanes, storage_type
from gpubench.emu.context import Context
from gpubench.emu.native.build import HANDLER_TYPE, I1, I8, I32, I64, Code, const, element, word
from gpubench.emu.native.layout import OPERAND_WORDS, RECORD_OPERANDS, Dispatch, Frame, Status
from gpubench.emu.ops import Unsupported, modes, valu
from gpubench.emu.ops import alu as reference
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO, SGPRS, VCC_LO
from gpubench.isa.decoder import Instruction


@dataclass(frozen=True)
class Bound:
    """An instruction bound to native code: the code and the operand words of its record."""

    code: Code
    operands: tuple[int, ...]


class Operands:
    """The operand words of one record, and how the IR reads them back."""

    def __init__(self) -> None:
        self.words: list[int] = []

    def add(self, value: int) -> int:
        if len(self.words) == OPERAND_WORDS:
            raise Unsupported("more operand words than a record holds")
        self.words.append(int(value) & 0xFFFFFFFFFFFFFFFF)
        return len(self.words) - 1

    @staticmethod
    def read(b: ir.IRBuilder, record: ir.Value, index: int, typ: ir.Type = I64) -> ir.Value:
        value = word(b, record, RECORD_OPERANDS + index)
        return value if typ == I64 else b.trunc(value, typ)


def semantics_of(op) -> tuple[str, str, str, str]:
    return op.arch, op.enum, op.name, op.text


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def int_type(width: int) -> ir.IntType:
    return ir.IntType(64 if width > 32 else 32)


# -- sources --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where a port's value comes from, as far as the generated code depends on it (the key)."""

    kind: str  # "vgpr", "sgpr", "const", "lane", "exec_bit", "mask_bit", "ieee", "trap_status"
    width: int = 32  # bits read: 32 or 64 (a register pair)
    half: str = ""  # "lo"/"hi": a 16-bit operand's half
    neg: bool = False
    absolute: bool = False
    sign_bit: int = 0
    operand: int = -1  # the record word holding the register number or the constant
    packed: tuple[bool, bool, bool, bool] | None = None  # VOP3P: (op_sel, op_sel_hi, neg_lo, neg_hi)
    select: tuple[int, int, bool] | None = None  # SDWA: (bit offset, width, sign-extend)


def scalar_source(ctx: Context, value: int, width: int, fmt: str | None, literal: int | None,
                   words: Operands) -> Source:
    """An SGPR (by number) or a constant (its bits, worked out here as the reference engine reads it)."""
    if value < SGPRS:
        if width > 32 and value + 1 >= SGPRS:
            raise Unsupported("a 64-bit SGPR operand at the end of the register file")
        return Source("sgpr", width, operand=words.add(value))
    if value in (opnd.SCC_SOURCE, opnd.VCCZ_SOURCE, opnd.EXECZ_SOURCE):
        raise Unsupported("a source that reads wave state (SCC, VCCZ, EXECZ)")
    try:
        bits = opnd.read_scalar(ctx, np.zeros(1, np.int64), value, width, fmt, literal)[0]
    except (ValueError, KeyError) as err:  # no such operand: the reference engine reports it when run
        raise Unsupported(str(err)) from None
    return Source("const", width, operand=words.add(int(bits)))


def vgpr_operand(ctx: Context, reg: int, width: int, words: Operands) -> int:
    """The record word naming VGPR ``reg`` (``width`` bits from it). A register past the wave's
    allocation is left to the reference engine, which stops the dispatch on it: native code would
    reach past the register file."""
    if reg + -(-width // 32) > ctx.waves.vgpr.shape[1]:
        raise Unsupported("a VGPR beyond the wave's allocation")
    return words.add(reg)


def _vector_source(ctx: Context, src: valu.Source, port, literal: int | None, words: Operands) -> Source:
    width = min(port.width, src.bits) if src.bits else port.width
    read_width = 64 if width > 32 else 32
    if src.value >= opnd.VGPR_BASE:
        base = Source("vgpr", read_width, operand=vgpr_operand(ctx, src.value - opnd.VGPR_BASE, read_width, words))
    else:
        base = scalar_source(ctx, src.value, width, src.fmt, literal, words)
    sign_bit = 0
    if src.neg or src.absolute:
        sign_bit = src.sign_bit if src.sign_bit is not None else \
            (opnd.float_kind(src.fmt) or src.bits or read_width) - 1
    half = ("hi" if src.high else "lo") if src.bits == 16 else ""
    return Source(base.kind, read_width, half, src.neg, src.absolute, sign_bit, base.operand, src.packed, src.select)


def read_register(b, frame, record, source: Source, lane, wave_size: int) -> ir.Value:
    """A VGPR (this lane's) or SGPR value, 32 or 64 bits (a pair, low word first)."""
    number = Operands.read(b, record, source.operand)
    if source.kind == "vgpr":
        base, stride = word(b, frame, Frame.VGPR, ir.PointerType()), const(wave_size)
        first = b.add(b.mul(number, stride), lane)
        low = b.load(element(b, base, first, I32), typ=I32)
        if source.width <= 32:
            return low
        high = b.load(element(b, base, b.add(first, stride), I32), typ=I32)
    else:
        base = word(b, frame, Frame.SGPR, ir.PointerType())
        low = b.load(element(b, base, number, I32), typ=I32)
        if source.width <= 32:
            return low
        high = b.load(element(b, base, b.add(number, const(1)), I32), typ=I32)
    return b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), const(32)))


def modified(b, value: ir.Value, source: Source) -> ir.Value:
    """SDWA's selection, the half a 16-bit operand names, then VOP3P's packing (operands.packed_halves)
    or abs and neg of its sign bit."""
    typ = value.type
    if source.select is not None and source.select[1] < 32:
        offset, width, sign_extend = source.select
        value = b.and_(b.lshr(value, ir.Constant(typ, offset)), ir.Constant(typ, (1 << width) - 1))
        if sign_extend:
            value = b.ashr(b.shl(value, ir.Constant(typ, 32 - width)), ir.Constant(typ, 32 - width))
    if source.half == "hi":
        value = b.lshr(value, ir.Constant(typ, 16))
    elif source.half == "lo":
        value = b.and_(value, ir.Constant(typ, 0xFFFF))
    if source.packed is not None:
        return _packed(b, value, source.packed)
    sign = ir.Constant(typ, 1 << source.sign_bit)
    if source.absolute:
        value = b.and_(value, b.not_(sign))
    if source.neg:
        value = b.xor(value, sign)
    return value


def _packed(b, value: ir.Value, packed: tuple[bool, bool, bool, bool]) -> ir.Value:
    """A VOP3P source: each half of the result from the half op_sel / op_sel_hi picks, negated as a
    float by neg_lo / neg_hi; halves of 16 bits (of 32 in a 64-bit source: CDNA's packed f32)."""
    typ = value.type
    width = typ.width // 2
    mask, sign, shift = ir.Constant(typ, (1 << width) - 1), ir.Constant(typ, 1 << (width - 1)), ir.Constant(typ, width)
    halves = []
    for from_high, negate in ((packed[0], packed[2]), (packed[1], packed[3])):
        half = b.lshr(value, shift) if from_high else b.and_(value, mask)
        halves.append(b.xor(half, sign) if negate else half)
    return b.or_(halves[0], b.shl(halves[1], shift))


def resized(b, value: ir.Value, typ: ir.IntType) -> ir.Value:
    """An integer zero-extended or truncated to ``typ``."""
    if value.type == typ:
        return value
    return b.zext(value, typ) if value.type.width < typ.width else b.trunc(value, typ)


def as_port(b, value: ir.Value, port) -> ir.Value:
    """An integer value in the storage type of ``port`` (zero-extended or truncated, as astype)."""
    target = storage_type(port.dtype)
    if value.type == target:
        return value
    if target == I8:  # a flag read from a register: nonzero
        return b.zext(b.icmp_unsigned("!=", value, ir.Constant(value.type, 0)), I8)
    return resized(b, value, target)


def lane_bit(b, mask: ir.Value, lane) -> ir.Value:
    return b.trunc(b.and_(b.lshr(mask, lane), const(1)), I8)


def lane_on(b, mask: ir.Value, lane, wave_size: int) -> ir.Value:
    """``lane``'s bit of a lane mask (`lane_mask`) as an i1; a wave32's in 32-bit arithmetic, which LLVM
    vectorizes eight lanes to an AVX2 operation, not four."""
    if wave_size == 32:
        mask, lane = b.trunc(mask, I32), b.trunc(lane, I32)
    return b.trunc(b.lshr(mask, lane), I1)


def lane_mask(b, frame, register: ir.Value, wave_size: int) -> ir.Value:
    """A lane mask register (a pair in wave64) as an i64."""
    base = word(b, frame, Frame.SGPR, ir.PointerType())
    low = b.zext(b.load(element(b, base, register, I32), typ=I32), I64)
    if wave_size == 32:
        return low
    high = b.zext(b.load(element(b, base, b.add(register, const(1)), I32), typ=I32), I64)
    return b.or_(low, b.shl(high, const(32)))


def _store_mask(b, frame, register: ir.Value, mask: ir.Value, wave_size: int) -> None:
    base = word(b, frame, Frame.SGPR, ir.PointerType())
    b.store(resized(b, mask, I32), element(b, base, register, I32))
    if wave_size == 64:
        b.store(b.trunc(b.lshr(mask, const(32)), I32), element(b, base, b.add(register, const(1)), I32))


def mode_check(b, frame) -> None:
    """Give the instruction to the reference engine unless MODE's float bits are the default."""
    mode = b.load(word(b, frame, Frame.MODE, ir.PointerType()), typ=I32)
    default = b.icmp_unsigned("==", b.and_(mode, const(modes.FLOAT_MODE_MASK, I32)),
                              const(modes.DEFAULT_FLOAT_MODE, I32))
    with b.if_then(b.not_(default)):
        b.ret(const(int(Status.REFERENCE), I32))


TRAP_STATUS = "trap_status"  # the kind of gfx12's TRAPSTS.INVALID port (min/max of a signaling NaN)


def uses_trap_status(key: str) -> bool:
    """Whether a handler's code reads or writes the trap status (the dispatch then provides it)."""
    return f"kind='{TRAP_STATUS}'" in key


def _trap_status(b, frame) -> ir.Value:
    """A pointer to this wave's trap status register (uint32)."""
    d = word(b, frame, Frame.DISPATCH, ir.PointerType())
    return element(b, word(b, d, Dispatch.TRAP_STATUS, ir.PointerType()), word(b, frame, Frame.WAVE), I32)


def _flag(b, register: ir.Value, bit: int) -> ir.Value:
    """Whether ``bit`` is set in a uint32 register, as an i8 0/1 (how the pseudocode's flags are read)."""
    return b.zext(b.icmp_unsigned("!=", b.and_(register, const(bit, I32)), const(0, I32)), I8)


def read_invalid(b, frame) -> ir.Value:
    """The trap status's INVALID bit."""
    return _flag(b, b.load(_trap_status(b, frame), typ=I32), int(valu.INVALID))


def _mode_flag(b, frame, bit: int) -> ir.Value:
    return _flag(b, b.load(word(b, frame, Frame.MODE, ir.PointerType()), typ=I32), bit)


def read_ieee(b, frame) -> ir.Value:
    """MODE's IEEE bit."""
    return _mode_flag(b, frame, modes.IEEE)


def raise_invalid(b, frame, raised: ir.Value) -> None:
    """Set the trap status's INVALID bit when ``raised`` (an integer) is not zero."""
    with b.if_then(b.icmp_unsigned("!=", raised, ir.Constant(raised.type, 0))):
        pointer = _trap_status(b, frame)
        b.store(b.or_(b.load(pointer, typ=I32), const(int(valu.INVALID), I32)), pointer)


def new_handler(module: ir.Module, name: str) -> tuple[ir.Function, ir.IRBuilder]:
    fn = ir.Function(module, HANDLER_TYPE, name)
    for arg in fn.args:
        arg.add_attribute("noalias")
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


# -- VALU -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Output:
    kind: str  # "vgpr", "mask" (a lane bit into a mask register), "carry" (D1: bit 0 into a mask),
    # "trap_status" (any lane's bit raises the trap status's INVALID)
    width: int = 32  # vgpr: 16 (a half), 32, 64
    high: bool = False
    operand: int = -1  # the record word with the register (-1: a NULL destination)
    clamped: tuple[tuple[int, int], ...] = ()  # clamp: (bit offset, float width) of each float field of the value
    placed: tuple[int, int, int] | None = None  # SDWA: (bit offset, width, dst_unused) of the result in the VGPR


def bind_valu(inst: Instruction, ctx: Context) -> Bound | None:
    if "DPP" in inst.fmt.name or inst.name.startswith(reference.VALU_NO_OPERATION):
        return None
    op = reference.compiled_semantics(inst)
    if op is None:
        return None
    ops = valu.operands_of(inst, op)
    if ops.omod or ops.dpp is not None:
        return None
    words = Operands()
    try:
        sources = {p.name: valu_source(ctx, inst, ops, p, words) for p in op.inputs}
        outputs = {p.name: valu_output(ctx, ops, p, words) for p in op.outputs}
    except Unsupported:
        return None
    wave_size = ctx.waves.wave_size
    float_check = any(opnd.float_kind(s.fmt) for s in ops.sources.values()) or \
        bool(ops.vdst and opnd.float_kind(ops.vdst.fmt))
    arch, enum, name, text = semantics_of(op)
    key = (f"valu {arch} {enum} {name} {text_digest(text)} wave{wave_size} mode={float_check} "
           f"in={sorted(sources.items())} out={sorted(outputs.items())}")

    def define(module: ir.Module, symbol: str) -> None:
        semantics = ElementSemantics(module, arch, enum, name, text)
        _define_valu(module, symbol, semantics, sources, outputs, wave_size, float_check)

    return Bound(Code(key, define), tuple(words.words))


def valu_source(ctx: Context, inst: Instruction, ops: valu.Operands, port, words: Operands) -> Source:
    name = port.name
    if name in ops.sources:
        return _vector_source(ctx, ops.sources[name], port, ops.literal, words)
    if name == "D0":
        dest = ops.vdst
        if dest is None:
            raise Unsupported("D0 read without a VGPR destination")
        if dest.select is not None:  # SDWA: dst_sel and dst_unused alone say what the rest becomes
            return Source("const", operand=words.add(0))
        return _vector_source(ctx, valu.Source(opnd.VGPR_BASE + dest.reg, dest.bits, dest.fmt, dest.high), port,
                              None, words)
    if name == "D1":
        return Source("const", operand=words.add(0))
    if name in ("VCC", "EXEC"):
        reg = ops.mask_in if name == "VCC" else EXEC_LO
        if reg >= SGPRS:
            raise Unsupported("a lane mask read from a constant")
        if not port.lane_bit:
            return scalar_source(ctx, reg, port.width, None, None, words)
        return Source("exec_bit") if name == "EXEC" else Source("mask_bit", operand=words.add(reg))
    if name == "laneId":
        return Source("lane")
    if name in ("WAVE32", "WAVE64"):
        return Source("const", operand=words.add(ctx.waves.wave_size == int(name[4:])))
    if name == "WAVE_MODE_IEEE":
        return Source("ieee")
    if name in ("SIMM32", "SIMM16") and ops.literal is not None:
        return Source("const", operand=words.add(ops.literal))
    if name in ops.selects:
        return Source("const", operand=words.add(ops.selects[name]))
    if name == "TRAPSTS_INVALID":
        return Source(TRAP_STATUS)
    raise Unsupported(f"{inst.name}: {name} is not read natively")


def valu_output(ctx: Context, ops: valu.Operands, port, words: Operands) -> Output:
    name = port.name
    if name == "TRAPSTS_INVALID":
        return Output(TRAP_STATUS)
    if port.lane_bit or name == "D1":
        reg = {"D0": ops.compare_out, "VCC": ops.mask_out, "EXEC": EXEC_LO, "D1": ops.mask_out}.get(name)
        if reg is None:
            raise Unsupported(f"{name}'s lane bits")
        if opnd.is_null(ctx, reg):
            return Output("carry" if name == "D1" else "mask")
        if ctx.waves.wave_size == 64 and reg + 1 >= SGPRS:
            raise Unsupported("a mask at the end of the register file")
        return Output("carry" if name == "D1" else "mask", operand=words.add(reg))
    if name == "D0" and ops.vdst is not None:
        dest = ops.vdst
        # a mix (v_fma_mixlo/hi) destination is the whole VGPR: the pseudocode writes its half of D0 and
        # keeps the other, which it read as D0
        # CDNA's 16-bit results in the low half clear the high half: the value, zero-extended, is the whole VGPR
        zero_high = ops.zeroes_high_half and dest.bits == 16 and not dest.high
        width = 32 if zero_high else 16 if dest.bits == 16 else port.width
        clamped = clamped_fields(dest) if ops.clamp else ()
        if clamped is None:
            raise Unsupported("clamp of an integer or BF16 result")
        return Output("vgpr", width, dest.high, vgpr_operand(ctx, dest.reg, width, words), clamped, dest.select)
    if name == "D0" and ops.scalar_out is not None:  # gfx12's v_s_*: a transcendental of a scalar
        if opnd.is_null(ctx, ops.scalar_out):
            return Output("sgpr", port.width)
        if port.width > 32 and ops.scalar_out + 1 >= SGPRS:
            raise Unsupported("an SGPR pair at the end of the register file")
        return Output("sgpr", port.width, operand=words.add(ops.scalar_out))
    raise Unsupported(f"{name} is not written natively")


# clamp's bounds, as bits: 1.0 and the infinity (a larger magnitude is a NaN) of each float width
FLOAT_ONE = {16: 0x3C00, 32: 0x3F80_0000, 64: 0x3FF0_0000_0000_0000}
FLOAT_INFINITY = {16: 0x7C00, 32: 0x7F80_0000, 64: 0x7FF0_0000_0000_0000}


def clamped_fields(dest: valu.Destination) -> tuple[tuple[int, int], ...] | None:
    """Where clamp saturates a float result, as the reference does (valu._float_modifiers): the f16 half
    a mix writes, both halves of a packed f16, or the whole value; None for what is not clamped here
    (integer saturation, BF16, packed f32)."""
    kind = opnd.float_kind(dest.fmt)
    if kind is None or "BF16" in dest.fmt:
        return None
    if dest.result_half is not None:
        return ((16 if dest.result_half else 0, 16),)
    if "PK2" in dest.fmt:
        return ((0, 16), (16, 16)) if kind == 16 else None
    return ((0, kind),)


def clamp(b, value: ir.Value, fields: tuple[tuple[int, int], ...], nan_to_zero: ir.Value) -> ir.Value:
    """Each float field of ``value`` clamped to [0, 1] on its bits, as numpy's clip does it in the
    reference: below 0 gives +0, above 1 gives 1, -0 and a NaN stay; a NaN gives 0 where
    ``nan_to_zero`` (MODE.DX10_CLAMP, i8) is set."""
    typ = value.type
    everything = (1 << typ.width) - 1
    keep_nan = b.icmp_unsigned("==", nan_to_zero, ir.Constant(nan_to_zero.type, 0))
    for shift, kind in fields:
        sign, one = ir.Constant(typ, 1 << (kind - 1)), ir.Constant(typ, FLOAT_ONE[kind])
        zero, field_mask = ir.Constant(typ, 0), ir.Constant(typ, (1 << kind) - 1)
        field = b.and_(b.lshr(value, ir.Constant(typ, shift)), field_mask)
        magnitude = b.and_(field, b.not_(sign))
        negative = b.icmp_unsigned("!=", b.and_(field, sign), zero)
        below = b.and_(negative, b.icmp_unsigned("!=", magnitude, zero))
        above = b.and_(b.not_(negative), b.icmp_unsigned(">", magnitude, one))
        clamped = b.select(below, zero, b.select(above, one, field))
        nan = b.icmp_unsigned(">", magnitude, ir.Constant(typ, FLOAT_INFINITY[kind]))
        clamped = b.select(nan, b.select(keep_nan, field, zero), clamped)
        others = ir.Constant(typ, everything & ~(((1 << kind) - 1) << shift))
        value = b.or_(b.and_(value, others), b.shl(clamped, ir.Constant(typ, shift)))
    return value


def _define_valu(module, symbol, semantics: ElementSemantics, sources: dict, outputs: dict, wave_size: int,
                 float_check: bool) -> None:
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    if float_check:
        mode_check(b, frame)
    exec_mask = lane_mask(b, frame, const(EXEC_LO), wave_size)
    uniform = {}  # values that are the same for every lane, read once
    for name, source in sources.items():
        if source.kind == "sgpr":
            uniform[name] = read_register(b, frame, record, source, None, wave_size)
        elif source.kind == "const":
            uniform[name] = Operands.read(b, record, source.operand, int_type(source.width))
        elif source.kind == "mask_bit":
            uniform[name] = lane_mask(b, frame, Operands.read(b, record, source.operand), wave_size)
        elif source.kind == "ieee":
            uniform[name] = read_ieee(b, frame)
        elif source.kind == TRAP_STATUS:
            uniform[name] = read_invalid(b, frame)
    ports = {p.name: p for p in (*semantics.inputs, *semantics.outputs)}
    masks = [name for name, out in outputs.items() if out.kind in ("mask", "carry", TRAP_STATUS)]
    mask_type = ir.IntType(wave_size)  # lane-bit results: a wave32's built in 32 bits (vectorized 8 lanes wide)
    nan_to_zero = _mode_flag(b, frame, modes.DX10_CLAMP) if any(out.clamped for out in outputs.values()) else None

    def active(b, lane):
        return lane_on(b, exec_mask, lane, wave_size)

    def read(b, lane):
        raw = {}
        for name, source in sources.items():
            port = ports[name]
            if source.kind == "vgpr":
                value = read_register(b, frame, record, source, lane, wave_size)
            elif source.kind == "lane":
                value = b.trunc(lane, I32)
            elif source.kind == "exec_bit":
                value = b.zext(active(b, lane), I8)
            elif source.kind == "mask_bit":
                value = lane_bit(b, uniform[name], lane)
            else:
                value = uniform[name]
            if source.kind in ("vgpr", "sgpr", "const"):
                value = modified(b, value, source)
            raw[name] = as_port(b, value, port)
        return [raw]

    def write(b, lane, results, carried):
        on = active(b, lane)
        values = dict(zip([p.name for p in semantics.outputs], results[0], strict=True))
        for name, out in outputs.items():
            if out.kind == "vgpr":
                value = clamp(b, values[name], out.clamped, nan_to_zero) if out.clamped else values[name]
                if out.placed is not None:
                    value = placed(b, frame, record, out, lane, value, wave_size)
                write_vgpr(b, frame, record, out, lane, on, value, wave_size)
            elif out.kind == "sgpr" and out.operand >= 0:
                write_sgpr(b, frame, record, out, values[name])
        updated = []
        for name, mask in zip(masks, carried, strict=True):
            bit = b.and_(resized(b, values[name], mask_type), ir.Constant(mask_type, 1))
            bit = b.select(on, bit, ir.Constant(mask_type, 0))
            updated.append(b.or_(mask, b.shl(bit, resized(b, lane, mask_type))))
        return updated

    # numpy's loops (transcendentals) are called once for the wave's lanes (emit_lanes); an SGPR result
    # (v_s_*, of scalar sources) is lane 0's, computed whatever EXEC, as the reference engine does
    scalar = any(out.kind == "sgpr" for out in outputs.values())
    final = emit_lanes(b, 1 if scalar else wave_size, [semantics], read, write,
                       [ir.Constant(mask_type, 0)] * len(masks))
    for name, mask in zip(masks, final, strict=True):
        out = outputs[name]
        if out.kind == TRAP_STATUS:
            raise_invalid(b, frame, mask)
        elif out.operand >= 0:
            _store_mask(b, frame, Operands.read(b, record, out.operand), mask, wave_size)
    b.ret(const(int(Status.NEXT), I32))



def placed(b, frame, record, out: Output, lane, value: ir.Value, wave_size: int) -> ir.Value:
    """An SDWA result (valu._placed): its low bits at dst_sel's offset, the other bits 0, its sign, or the
    VGPR's own (dst_unused)."""
    offset, width, unused = out.placed
    value = b.trunc(value, I32) if value.type.width > 32 else b.zext(value, I32) if value.type.width < 32 else value
    field = b.and_(value, const((1 << width) - 1, I32))
    if unused == valu.UNUSED_SEXT:
        field = b.ashr(b.shl(field, const(32 - width, I32)), const(32 - width, I32))
    result = b.shl(field, const(offset, I32))
    if unused == valu.UNUSED_PRESERVE:
        base = word(b, frame, Frame.VGPR, ir.PointerType())
        index = b.add(b.mul(Operands.read(b, record, out.operand), const(wave_size)), lane)
        old = b.load(element(b, base, index, I32), typ=I32)
        keep = const(~(((1 << width) - 1) << offset) & 0xFFFF_FFFF, I32)
        result = b.or_(b.and_(old, keep), b.and_(result, b.not_(keep)))
    return result


def frozen(b, value: ir.Value) -> ir.Value:
    """``freeze value``: the same bits, opaque to LLVM's pattern matching (llvmlite's builder has no freeze)."""
    instruction = ir.Instruction(b.block, value.type, "freeze", [value])
    b._insert(instruction)
    return instruction


def kept_row(b, pointer: ir.Value) -> ir.Value:
    """A VGPR element a lane loop writes back, to keep it in a lane EXEC disables. Frozen: LLVM would
    otherwise turn the select of it and the store into a masked store, which on AMD's CPUs costs
    several times a plain store and stalls the next instruction's load of the register."""
    return frozen(b, b.load(pointer, typ=I32))


def write_vgpr(b, frame, record, out: Output, lane, active, value: ir.Value, wave_size: int) -> None:
    base, stride = word(b, frame, Frame.VGPR, ir.PointerType()), const(wave_size)
    first = b.add(b.mul(Operands.read(b, record, out.operand), stride), lane)
    low_ptr = element(b, base, first, I32)
    old = kept_row(b, low_ptr)
    if out.width == 16:
        half = b.and_(b.trunc(value, I32) if value.type.width > 32 else b.zext(value, I32)
                      if value.type.width < 32 else value, const(0xFFFF, I32))
        if out.high:
            new = b.or_(b.and_(old, const(0x0000FFFF, I32)), b.shl(half, const(16, I32)))
        else:
            new = b.or_(b.and_(old, const(0xFFFF0000, I32)), half)
        b.store(b.select(active, new, old), low_ptr)
        return
    wide = b.zext(value, I64) if value.type.width < 64 else value
    b.store(b.select(active, b.trunc(wide, I32), old), low_ptr)
    if out.width > 32:
        high_ptr = element(b, base, b.add(first, stride), I32)
        old_high = kept_row(b, high_ptr)
        b.store(b.select(active, b.trunc(b.lshr(wide, const(32)), I32), old_high), high_ptr)


# -- SALU -------------------------------------------------------------------------------------------


def bind_salu(inst: Instruction, ctx: Context) -> Bound | None:
    root = inst.isa.root_of(inst.fmt)
    op = reference.compiled_semantics(inst)
    if op is None:
        return None
    operand_fmt = {f: (inst.idef.operand(f).fmt if inst.idef.operand(f) else None) for f in ("ssrc0", "ssrc1", "sdst")}
    float_check = any(opnd.float_kind(fmt) for fmt in operand_fmt.values())
    fields = dict(zip(("S0", "S1"), reference.SALU_SOURCES[root]))
    reads = {p.name for p in op.inputs}
    immediate_port = None if root != "SOPK" or "SIMM16" in reads else "S1" if "S1" in reads else "S0"
    literal, sdst = inst.get("literal"), inst.get("sdst")
    m0 = 124 if inst.isa.arch == "cdna" else 125
    registers = {"EXEC": EXEC_LO, "VCC": VCC_LO, "M0": m0}
    words = Operands()
    wave_size = ctx.waves.wave_size
    try:
        sources = {}
        for port in op.inputs:
            name, width = port.name, reference.port_width(op, port.name)
            if name == immediate_port or name == "SIMM16":
                sources[name] = Source("const", operand=words.add(inst["simm16"]))
            elif name in fields:
                sources[name] = scalar_source(ctx, inst[fields[name]], width, operand_fmt[fields[name]], literal, words)
            elif name == "D0":
                sources[name] = scalar_source(ctx, sdst, width, None, None, words)
            elif name in registers:
                sources[name] = scalar_source(ctx, registers[name], width, None, None, words)
            elif name == "SIMM32":
                sources[name] = Source("const", operand=words.add(literal))
            elif name in ("WAVE32", "WAVE64"):
                sources[name] = Source("const", operand=words.add(wave_size == int(name[4:])))
            elif name in ("SCC", "PC", "VCCZ", "EXECZ"):
                sources[name] = Source(name.lower(), operand=words.add(VCC_LO if name == "VCCZ" else EXEC_LO)
                                       if name in ("VCCZ", "EXECZ") else -1)
            elif name == "WAVE_MODE_IEEE":
                sources[name] = Source("ieee")
            elif name == "TRAPSTS_INVALID":
                sources[name] = Source(TRAP_STATUS)
            elif name in reference.CONDITIONAL_DEBUG_FLAGS:
                sources[name] = Source("const", operand=words.add(0))  # no debugger attached
            else:
                return None
        outputs = {}
        for port in op.outputs:
            name = port.name
            if name == "D0":
                reg = sdst
            elif name in registers:
                reg = registers[name]
            elif name in ("SCC", "PC"):
                outputs[name] = Output(name.lower())
                continue
            elif name == "TRAPSTS_INVALID":
                outputs[name] = Output(TRAP_STATUS)
                continue
            else:
                return None
            # EXEC and VCC take as many bits as the wave has lanes, whatever the pseudocode's width
            width = reference.port_width(op, name) if name == "D0" else 64 if wave_size == 64 and name != "M0" else 32
            if opnd.is_null(ctx, reg):
                outputs[name] = Output("sgpr", width)
                continue
            if width > 32 and reg + 1 >= SGPRS:
                return None
            outputs[name] = Output("sgpr", width, operand=words.add(reg))
    except Unsupported:
        return None
    arch, enum, name, text = semantics_of(op)
    key = (f"salu {arch} {enum} {name} {text_digest(text)} wave{wave_size} size={inst.size} "
           f"mode={float_check} in={sorted(sources.items())} out={sorted(outputs.items())}")

    def define(module: ir.Module, symbol: str) -> None:
        semantics = ElementSemantics(module, arch, enum, name, text)
        _define_salu(module, symbol, semantics, sources, outputs, wave_size, float_check)

    return Bound(Code(key, define), tuple(words.words))


def _define_salu(module, symbol, semantics: ElementSemantics, sources: dict, outputs: dict, wave_size: int,
                 float_check: bool) -> None:
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    if float_check:
        mode_check(b, frame)
    ports = {p.name: p for p in (*semantics.inputs, *semantics.outputs)}
    scc_ptr, pc_ptr = word(b, frame, Frame.SCC, ir.PointerType()), word(b, frame, Frame.PC, ir.PointerType())
    raw = {}
    for name, source in sources.items():
        if source.kind == "sgpr":
            value = read_register(b, frame, record, source, None, wave_size)
        elif source.kind == "const":
            value = Operands.read(b, record, source.operand, int_type(source.width))
        elif source.kind == "scc":
            value = b.load(scc_ptr, typ=I8)
        elif source.kind == "pc":
            value = b.load(pc_ptr, typ=I64)
        elif source.kind in ("vccz", "execz"):
            mask = lane_mask(b, frame, Operands.read(b, record, source.operand), wave_size)
            value = b.zext(b.icmp_unsigned("==", mask, const(0)), I8)
        elif source.kind == TRAP_STATUS:
            value = read_invalid(b, frame)
        else:  # ieee
            value = read_ieee(b, frame)
        raw[name] = as_port(b, value, ports[name])
    results = dict(zip([p.name for p in semantics.outputs], semantics.emit(b, raw), strict=True))
    status = Status.NEXT
    for name, out in outputs.items():
        value = results[name]
        if out.kind == "scc":
            b.store(value, scc_ptr)
        elif out.kind == "pc":
            b.store(value, pc_ptr)
            status = Status.JUMPED
        elif out.kind == TRAP_STATUS:
            raise_invalid(b, frame, value)
        elif out.operand >= 0:
            write_sgpr(b, frame, record, out, value)
    b.ret(const(int(status), I32))


def write_sgpr(b, frame, record, out: Output, value: ir.Value) -> None:
    """An SGPR result (a pair, low word first, when wider than 32 bits)."""
    base = word(b, frame, Frame.SGPR, ir.PointerType())
    reg = Operands.read(b, record, out.operand)
    wide = b.zext(value, I64) if value.type.width < 64 else value
    b.store(b.trunc(wide, I32), element(b, base, reg, I32))
    if out.width > 32:
        b.store(b.trunc(b.lshr(wide, const(32)), I32), element(b, base, b.add(reg, const(1)), I32))



# -- program control --------------------------------------------------------------------------------

CONTROL_STATUS = {"S_ENDPGM": Status.END, "S_ENDPGM_SAVED": Status.END, "S_BARRIER": Status.BARRIER,
                  "S_BARRIER_SIGNAL": Status.BARRIER}


def bind_control(inst: Instruction, ctx: Context) -> Bound | None:
    """ops/control.py's instructions: a handler that only returns what the loop does with the wave."""
    status = CONTROL_STATUS.get(inst.name, Status.NEXT)

    def define(module: ir.Module, symbol: str) -> None:
        _, b = new_handler(module, symbol)
        b.ret(const(int(status), I32))

    return Bound(Code(f"control {status.name}", define), ())
