"""Native handlers for the DS instructions: LDS loads and stores, integer LDS atomics, append/consume,
and the cross-lane permutes and swizzle that use the DS encoding (the reference: ops/lds.py).

A wave's LDS is its workgroup's row of ``ctx.lds`` (the dispatch block's LDS, LDS_BYTES and WORKGROUP
slots, the frame's WAVE). Addresses are as ops/lds.py has them: VGPR[addr] (32 bits) + offset, 64 bits
wide, so nothing wraps; 2ADDR forms add offset0/offset1 times the element size (times 64 for
STRIDE64/ST64, worked out when binding); ADDTID adds M0[15:0] and lane * 4 (M0: s124 on CDNA, s125 on
RDNA). An access wholly inside the row moves its bytes directly; one reaching past it moves the bytes
inside, byte by byte: they read 0 beyond the row and their writes are dropped (segments.py). Lanes run
in lane order, so a later lane wins an overlapping store, as in the reference; a 2ADDR store writes
every lane's first element before any lane's second, as the reference does. Sub-dword loads zero- or
sign-extend, D16 loads fill one half of the VGPR and keep the other, D16_HI stores take bits 31:16
(lane_data.py).

Atomics run lane after lane (each lane sees the earlier lanes' updates, as rmw.py's serialization
gives); an access past the row is dropped whole and returns 0. A wave whose in-range lanes include a
misaligned atomic goes to the reference engine (rmw.py keys lanes by address, so partly overlapping
accesses are not serialized there).

Left to the reference engine: float atomics (DS_ADD_F32, MIN/MAX_F*, *_NUM_*, CMPST_F*, PK_ADD_*),
DS_CONDXCHG32, the 2ADDR exchanges (STOREXCHG_2ADDR, WRXCHG2), GDS/GWS/ordered count/BVH/GS/transposes,
AGPR data and registers past the end of the register file (the reference reports those).
"""
from __future__ import annotations

from llvmlite import ir

from gpubench.emu.context import Context
from gpubench.emu.native import lane_data
from gpubench.emu.native.alu import Bound, Operands, new_handler, lane_mask
from gpubench.emu.native.build import I1, I8, I32, I64, PTR, Code, const, counted_loop, element, word
from gpubench.emu.native.layout import Dispatch, Frame, Status
from gpubench.emu.ops import lds as reference
from gpubench.emu.ops.lane_data import DataAccess, data_access
from gpubench.emu.ops.rmw import AtomicOp, atomic_op
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction

CROSS_LANE = ("DS_BPERMUTE_B32", "DS_BPERMUTE_FI_B32", "DS_PERMUTE_B32", "DS_SWIZZLE_B32")


def bind_lds(inst: Instruction, ctx: Context) -> Bound | None:
    if inst.isa.root_of(inst.fmt) != "DS" or inst.get("gds") or inst.get("acc"):
        return None
    name, tokens = inst.name, inst.name.split("_")
    if any(t in tokens for t in reference.NOT_LDS) or name in reference.TRANSPOSED:
        return None
    vgprs, wave_size = ctx.waves.vgpr.shape[1], ctx.waves.wave_size
    operand = {f: inst[f] for f in ("addr", "data0", "data1", "vdst") if inst.fmt.field(f)}

    def fits(field: str, dwords: int) -> bool:
        return operand.get(field, 0) + dwords <= vgprs

    if name == "DS_NOP":
        return Bound(Code("ds nop", _define_nop), ())
    if name in CROSS_LANE:
        return _bind_cross_lane(inst, wave_size, fits)
    if name in ("DS_APPEND", "DS_CONSUME"):
        if not fits("vdst", 1):
            return None
        words = (_m0(inst), reference.ds_offset(inst), operand["vdst"])
        key = f"ds {name.lower()} wave{wave_size}"
        return Bound(Code(key, lambda m, s: _define_append(m, s, name == "DS_APPEND", wave_size)), words)
    if "ADDTID" in tokens:
        load = tokens[1] in ("LOAD", "READ")
        reg = "vdst" if load else "data0"
        if not fits(reg, 1):
            return None
        words = (_m0(inst), reference.ds_offset(inst), operand[reg])
        key = f"ds addtid {'load' if load else 'store'} wave{wave_size}"
        return Bound(Code(key, lambda m, s: _define_addtid(m, s, load, wave_size)), words)
    if "2ADDR" in tokens or tokens[1] in ("READ2", "READ2ST64", "WRITE2", "WRITE2ST64", "WRXCHG2", "WRXCHG2ST64"):
        kind = "load" if tokens[1] in ("LOAD", "READ2", "READ2ST64") else \
            "store" if tokens[1] in ("STORE", "WRITE2", "WRITE2ST64") else None
        if kind is None:
            return None  # the 2ADDR exchanges
        size = 8 if tokens[-1] == "B64" else 4
        scale = size * (64 if "STRIDE64" in tokens or tokens[1].endswith("ST64") else 1)
        dwords = size // 4
        if not fits("addr", 1) or (kind == "load" and not fits("vdst", 2 * dwords)) or \
                (kind == "store" and not (fits("data0", dwords) and fits("data1", dwords))):
            return None
        words = (operand["addr"], inst["offset0"] * scale, inst["offset1"] * scale,
                 operand["vdst" if kind == "load" else "data0"], operand.get("data1", 0))
        key = f"ds 2addr {kind} size={size} wave{wave_size}"
        return Bound(Code(key, lambda m, s: _define_two(m, s, kind == "load", size, wave_size)), words)
    if tokens[1] in ("LOAD", "READ") or (tokens[1] in ("STORE", "WRITE") and "ADDR" not in name):
        load = tokens[1] in ("LOAD", "READ")
        reg = "vdst" if load else "data0"
        access = data_access(name, inst.idef.operand(reg).bits)
        if not fits("addr", 1) or not fits(reg, access.dwords):
            return None
        words = (operand["addr"], reference.ds_offset(inst), operand[reg])
        key = f"ds {'load' if load else 'store'} {access} wave{wave_size}"
        return Bound(Code(key, lambda m, s: _define_load_store(m, s, load, access, wave_size)), words)
    op = atomic_op(name) if not name.startswith("DS_CONDXCHG32") else None
    if op is None or op.kind not in UPDATES or op.float_compare:
        return None
    returns, dwords = "RTN" in tokens, op.bits // 32
    first, second = ("data1", "data0") if "CMPST" in tokens else ("data0", "data1")
    if not fits("addr", 1) or not fits(first, dwords) or (op.operands == 2 and not fits(second, dwords)) or \
            (returns and not fits("vdst", dwords)):
        return None
    words = (operand["addr"], reference.ds_offset(inst), operand[first],
             operand[second] if op.operands == 2 else operand[first], operand["vdst"] if returns else 0)
    key = f"ds atomic {op.kind} bits={op.bits} returns={returns} wave{wave_size}"
    return Bound(Code(key, lambda m, s: _define_atomic(m, s, op, returns, wave_size)), words)


def _m0(inst: Instruction) -> int:
    return reference.M0_CDNA if inst.isa.arch == "cdna" else reference.M0_RDNA


# -- what every handler reads ------------------------------------------------------------------------


class _Wave:
    """A handler's view of its wave: registers, EXEC, and its workgroup's LDS row and size."""

    def __init__(self, b: ir.IRBuilder, frame, record, wave_size: int):
        self.b, self.record, self.wave_size = b, record, wave_size
        # an access's bytes near the row's end (an opaque pointer: values of any width go through it)
        self.scratch = b.inttoptr(b.ptrtoint(b.alloca(I8, size=16), I64), PTR)
        d = word(b, frame, Frame.DISPATCH, PTR)
        self.limit = word(b, d, Dispatch.LDS_BYTES)
        group = b.load(element(b, word(b, d, Dispatch.WORKGROUP, PTR), word(b, frame, Frame.WAVE), I64), typ=I64)
        self.row = b.gep(word(b, d, Dispatch.LDS, PTR), [b.mul(group, self.limit)], source_etype=I8)
        self.vgpr, self.sgpr = word(b, frame, Frame.VGPR, PTR), word(b, frame, Frame.SGPR, PTR)
        self.exec = lane_mask(b, frame, const(EXEC_LO), wave_size)

    def operand(self, index: int) -> ir.Value:
        return Operands.read(self.b, self.record, index)

    def active(self, lane) -> ir.Value:
        return self.b.trunc(self.b.and_(self.b.lshr(self.exec, lane), const(1)), I1)

    def vgpr_ptr(self, reg: ir.Value, lane, k: int = 0) -> ir.Value:
        b = self.b
        return element(b, self.vgpr, b.add(b.mul(b.add(reg, const(k)), const(self.wave_size)), lane), I32)

    def address(self, lane, offset: ir.Value) -> ir.Value:
        """VGPR[addr] (record word 0) + ``offset``, 64 bits wide."""
        b = self.b
        return b.add(b.zext(b.load(self.vgpr_ptr(self.operand(0), lane), typ=I32), I64), offset)

    def inside(self, address: ir.Value, size: int) -> ir.Value:
        return self.b.icmp_unsigned("<=", self.b.add(address, const(size)), self.limit)

    def read(self, address: ir.Value, size: int) -> ir.Value:
        """A pointer to ``size`` bytes of the access at ``address``: into the row when they are all
        inside it, else to the scratch copy (bytes past the row 0)."""
        b = self.b
        inside = self.inside(address, size)
        with b.if_then(b.not_(inside), likely=False):
            for k in range(size):
                at, byte = b.add(address, const(k)), b.gep(self.scratch, [const(k)], source_etype=I8)
                b.store(const(0, I8), byte)
                with b.if_then(b.icmp_unsigned("<", at, self.limit)):
                    b.store(b.load(b.gep(self.row, [at], source_etype=I8), typ=I8), byte)
        return b.select(inside, b.gep(self.row, [address], source_etype=I8), self.scratch)

    def write(self, address: ir.Value, values: list[ir.Value]) -> None:
        """Store ``values`` (integers, low bytes first) at ``address``; bytes past the row are dropped."""
        b = self.b
        size = sum(v.type.width // 8 for v in values)
        with b.if_else(self.inside(address, size), likely=True) as (whole, part):
            with whole:
                self._put(b.gep(self.row, [address], source_etype=I8), values)
            with part:
                self._put(self.scratch, values)
                for k in range(size):
                    at = b.add(address, const(k))
                    with b.if_then(b.icmp_unsigned("<", at, self.limit)):
                        byte = b.load(b.gep(self.scratch, [const(k)], source_etype=I8), typ=I8)
                        b.store(byte, b.gep(self.row, [at], source_etype=I8))

    def _put(self, pointer: ir.Value, values: list[ir.Value]) -> None:
        at = 0
        for value in values:
            self.b.store(value, self.b.gep(pointer, [const(at)], source_etype=I8), align=1)
            at += value.type.width // 8


def _define_nop(module: ir.Module, symbol: str) -> None:
    _, b = new_handler(module, symbol)
    b.ret(const(int(Status.NEXT), I32))


# -- loads and stores --------------------------------------------------------------------------------


def _define_load_store(module, symbol, load: bool, access: DataAccess, wave_size: int) -> None:
    """Record words: addr, offset, data or vdst."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    offset, reg = wave.operand(1), wave.operand(2)

    def lane_body(b, lane, carried):
        with b.if_then(wave.active(lane)):
            address = wave.address(lane, offset)
            if load:
                lane_data.to_vgprs(b, lambda k: wave.vgpr_ptr(reg, lane, k), wave.read(address, access.size), access)
            else:
                wave.write(address, lane_data.from_vgprs(b, lambda k: wave.vgpr_ptr(reg, lane, k), access))
        return []

    counted_loop(b, wave_size, [], lane_body)
    b.ret(const(int(Status.NEXT), I32))


def _define_two(module, symbol, load: bool, size: int, wave_size: int) -> None:
    """Record words: addr, offset0 and offset1 (scaled), vdst or data0, data1."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    offsets, dwords = (wave.operand(1), wave.operand(2)), size // 4
    element_access = DataAccess(size)
    if load:
        vdst = wave.operand(3)

        def lane_body(b, lane, carried):
            with b.if_then(wave.active(lane)):
                values = []
                for offset in offsets:
                    values += lane_data.dwords(b, wave.read(wave.address(lane, offset), size), dwords)
                for k, value in enumerate(values):
                    b.store(value, wave.vgpr_ptr(vdst, lane, k))
            return []

        counted_loop(b, wave_size, [], lane_body)
    else:
        for offset, data in zip(offsets, (wave.operand(3), wave.operand(4)), strict=True):
            def lane_body(b, lane, carried, offset=offset, data=data):
                with b.if_then(wave.active(lane)):
                    values = lane_data.from_vgprs(b, lambda k: wave.vgpr_ptr(data, lane, k), element_access)
                    wave.write(wave.address(lane, offset), values)
                return []

            counted_loop(b, wave_size, [], lane_body)  # every lane's first element, then the second
    b.ret(const(int(Status.NEXT), I32))


def _define_addtid(module, symbol, load: bool, wave_size: int) -> None:
    """Record words: M0's register, offset, vdst or data0. Address: offset + M0[15:0] + lane * 4."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    m0 = b.zext(b.load(element(b, wave.sgpr, wave.operand(0), I32), typ=I32), I64)
    base = b.add(b.and_(m0, const(0xFFFF)), wave.operand(1))
    reg, access = wave.operand(2), DataAccess(4)

    def lane_body(b, lane, carried):
        with b.if_then(wave.active(lane)):
            address = b.add(base, b.shl(lane, const(2)))
            if load:
                lane_data.to_vgprs(b, lambda k: wave.vgpr_ptr(reg, lane, k), wave.read(address, 4), access)
            else:
                wave.write(address, lane_data.from_vgprs(b, lambda k: wave.vgpr_ptr(reg, lane, k), access))
        return []

    counted_loop(b, wave_size, [], lane_body)
    b.ret(const(int(Status.NEXT), I32))


# -- atomics -----------------------------------------------------------------------------------------


UPDATES = {  # rmw.apply for one lane: the new memory value from the old (tmp), DATA (a) and DATA2 (c)
    "add": lambda b, tmp, a, c: b.add(tmp, a),
    "sub": lambda b, tmp, a, c: b.sub(tmp, a),
    "rsub": lambda b, tmp, a, c: b.sub(a, tmp),
    "inc": lambda b, tmp, a, c: b.select(b.icmp_unsigned(">=", tmp, a), _zero(tmp), b.add(tmp, _one(tmp))),
    "dec": lambda b, tmp, a, c: b.select(b.or_(b.icmp_unsigned("==", tmp, _zero(tmp)), b.icmp_unsigned(">", tmp, a)),
                                         a, b.sub(tmp, _one(tmp))),
    "smin": lambda b, tmp, a, c: b.select(b.icmp_signed("<", a, tmp), a, tmp),
    "smax": lambda b, tmp, a, c: b.select(b.icmp_signed(">", a, tmp), a, tmp),
    "umin": lambda b, tmp, a, c: b.select(b.icmp_unsigned("<", a, tmp), a, tmp),
    "umax": lambda b, tmp, a, c: b.select(b.icmp_unsigned(">", a, tmp), a, tmp),
    "and": lambda b, tmp, a, c: b.and_(tmp, a),
    "or": lambda b, tmp, a, c: b.or_(tmp, a),
    "xor": lambda b, tmp, a, c: b.xor(tmp, a),
    "swap": lambda b, tmp, a, c: a,
    "cmpswap": lambda b, tmp, a, c: b.select(b.icmp_unsigned("==", tmp, c), a, tmp),
    "mskor": lambda b, tmp, a, c: b.or_(b.and_(tmp, b.not_(a)), c),
    "wrap": lambda b, tmp, a, c: b.select(b.icmp_unsigned(">=", tmp, a), b.sub(tmp, a), b.add(tmp, c)),
    "sub_clamp": lambda b, tmp, a, c: b.select(b.icmp_unsigned("<", tmp, a), _zero(tmp), b.sub(tmp, a)),
    "cond_sub": lambda b, tmp, a, c: b.select(b.icmp_unsigned(">=", tmp, a), b.sub(tmp, a), tmp),
}


def _zero(value: ir.Value) -> ir.Constant:
    return ir.Constant(value.type, 0)


def _one(value: ir.Value) -> ir.Constant:
    return ir.Constant(value.type, 1)


def _read_value(wave: _Wave, reg: ir.Value, lane, bits: int) -> ir.Value:
    b = wave.b
    low = b.load(wave.vgpr_ptr(reg, lane), typ=I32)
    if bits == 32:
        return low
    high = b.load(wave.vgpr_ptr(reg, lane, 1), typ=I32)
    return b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), const(32)))


def _define_atomic(module, symbol, op: AtomicOp, returns: bool, wave_size: int) -> None:
    """Record words: addr, offset, DATA's register, DATA2's, vdst."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    offset, size, typ = wave.operand(1), op.size, lane_data.INT[op.size]

    def misaligned(b, lane, carried):
        address = wave.address(lane, offset)
        odd = b.icmp_unsigned("!=", b.and_(address, const(size - 1)), const(0))
        counts = b.and_(wave.active(lane), b.and_(odd, wave.inside(address, size)))
        return [b.or_(carried[0], counts)]

    with b.if_then(counted_loop(b, wave_size, [const(0, I1)], misaligned)[0], likely=False):
        b.ret(const(int(Status.REFERENCE), I32))

    def lane_body(b, lane, carried):
        with b.if_then(wave.active(lane)):
            address = wave.address(lane, offset)
            a = _read_value(wave, wave.operand(2), lane, op.bits)
            second = _read_value(wave, wave.operand(3), lane, op.bits)
            before_block = b.block
            inside = wave.inside(address, size)
            with b.if_then(inside):
                pointer = b.gep(wave.row, [address], source_etype=I8)
                tmp = b.load(pointer, typ=typ, align=1)
                b.store(UPDATES[op.kind](b, tmp, a, second), pointer, align=1)
                inside_block = b.block
            if returns:
                before = b.phi(typ)
                before.add_incoming(ir.Constant(typ, 0), before_block)
                before.add_incoming(tmp, inside_block)
                vdst = wave.operand(4)
                if op.bits == 32:
                    b.store(before, wave.vgpr_ptr(vdst, lane))
                else:
                    b.store(b.trunc(before, I32), wave.vgpr_ptr(vdst, lane))
                    b.store(b.trunc(b.lshr(before, const(32)), I32), wave.vgpr_ptr(vdst, lane, 1))
        return []

    counted_loop(b, wave_size, [], lane_body)
    b.ret(const(int(Status.NEXT), I32))


def _define_append(module, symbol, append: bool, wave_size: int) -> None:
    """DS_APPEND/DS_CONSUME: one update of the dword at M0[15:0] + offset by the wave's active lanes,
    every active lane getting the prior value. Record words: M0's register, offset, vdst."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    count = b.call(module.declare_intrinsic("llvm.ctpop", [I64]), [wave.exec])
    with b.if_then(b.icmp_unsigned("==", count, const(0)), likely=False):
        b.ret(const(int(Status.NEXT), I32))
    m0 = b.zext(b.load(element(b, wave.sgpr, wave.operand(0), I32), typ=I32), I64)
    address = b.add(b.and_(m0, const(0xFFFF)), wave.operand(1))
    start = b.block
    with b.if_then(wave.inside(address, 4)):
        pointer = b.gep(wave.row, [address], source_etype=I8)
        tmp = b.load(pointer, typ=I32, align=1)
        delta = b.trunc(count, I32)
        b.store(b.add(tmp, delta) if append else b.sub(tmp, delta), pointer, align=1)
        inside_block = b.block
    prior = b.phi(I32)
    prior.add_incoming(const(0, I32), start)
    prior.add_incoming(tmp, inside_block)
    vdst = wave.operand(2)

    def lane_body(b, lane, carried):
        with b.if_then(wave.active(lane)):
            b.store(prior, wave.vgpr_ptr(vdst, lane))
        return []

    counted_loop(b, wave_size, [], lane_body)
    b.ret(const(int(Status.NEXT), I32))


# -- cross-lane --------------------------------------------------------------------------------------


def _bind_cross_lane(inst: Instruction, wave_size: int, fits) -> Bound | None:
    name = inst.name
    data = "addr" if name == "DS_SWIZZLE_B32" else "data0"
    if not (fits("addr", 1) and fits(data, 1) and fits("vdst", 1)):
        return None
    offset = reference.ds_offset(inst)
    if name == "DS_SWIZZLE_B32":
        sources = [int(s) for s in reference.swizzle_sources(offset, wave_size)]
        key = f"ds swizzle offset={offset} wave{wave_size}"
        return Bound(Code(key, lambda m, s: _define_swizzle(m, s, sources, wave_size)), (inst["addr"], inst["vdst"]))
    whole_wave = name == "DS_BPERMUTE_FI_B32" or inst.isa.arch == "cdna"
    key = f"ds {name.lower()} whole={whole_wave} wave{wave_size}"
    words = (inst["addr"], offset, inst["data0"], inst["vdst"])
    return Bound(Code(key, lambda m, s: _define_permute(m, s, name, whole_wave, wave_size)), words)


def _define_swizzle(module, symbol, sources: list[int], wave_size: int) -> None:
    """Record words: the data register (addr), vdst. Each lane reads the lane ``sources`` names, 0 if
    that lane is inactive; results go to the active lanes after every lane has read."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    table = ir.GlobalVariable(module, ir.ArrayType(I64, wave_size), "swizzle_sources")
    table.linkage, table.global_constant = "internal", True
    table.initializer = ir.Constant(ir.ArrayType(I64, wave_size), sources)
    results = b.bitcast(b.alloca(I32, size=wave_size), PTR)
    data, vdst = wave.operand(0), wave.operand(1)

    def read(b, lane, carried):
        source = b.load(element(b, b.bitcast(table, PTR), lane, I64), typ=I64)
        value = b.load(wave.vgpr_ptr(data, source), typ=I32)
        b.store(b.select(wave.active(source), value, const(0, I32)), element(b, results, lane, I32))
        return []

    counted_loop(b, wave_size, [], read)
    _write_results(wave, results, vdst)


def _define_permute(module, symbol, name: str, whole_wave: bool, wave_size: int) -> None:
    """Record words: addr, offset, data0, vdst (ops/lds.py's _cross_lane)."""
    fn, b = new_handler(module, symbol)
    wave = _Wave(b, *fn.args, wave_size)
    offset, data, vdst = wave.operand(1), wave.operand(2), wave.operand(3)
    results = b.bitcast(b.alloca(I32, size=wave_size), PTR)

    def addressed(b, lane) -> ir.Value:
        index = b.lshr(wave.address(lane, offset), const(2))
        if whole_wave:
            return b.and_(index, const(wave_size - 1))
        return b.or_(b.and_(lane, const(32)), b.and_(index, const(31)))

    if name == "DS_PERMUTE_B32":  # lane i's data to the lane it addresses; the highest source wins
        writers = b.bitcast(b.alloca(I64, size=wave_size), PTR)

        def clear(b, lane, carried):
            b.store(const(-1), element(b, writers, lane, I64))
            return []

        def scatter(b, lane, carried):
            with b.if_then(wave.active(lane)):
                b.store(lane, element(b, writers, addressed(b, lane), I64))
            return []

        def gather(b, lane, carried):
            writer = b.load(element(b, writers, lane, I64), typ=I64)
            wrote = b.icmp_signed(">=", writer, const(0))
            value = b.load(wave.vgpr_ptr(data, b.select(wrote, writer, const(0))), typ=I32)
            b.store(b.select(wrote, value, const(0, I32)), element(b, results, lane, I32))
            return []

        for body in (clear, scatter, gather):
            counted_loop(b, wave_size, [], body)
    else:
        fetch_inactive = name == "DS_BPERMUTE_FI_B32"

        def read(b, lane, carried):
            source = addressed(b, lane)
            value = b.load(wave.vgpr_ptr(data, source), typ=I32)
            if not fetch_inactive:
                value = b.select(wave.active(source), value, const(0, I32))
            b.store(value, element(b, results, lane, I32))
            return []

        counted_loop(b, wave_size, [], read)
    _write_results(wave, results, vdst)


def _write_results(wave: _Wave, results: ir.Value, vdst: ir.Value) -> None:
    b = wave.b

    def write(b, lane, carried):
        with b.if_then(wave.active(lane)):
            b.store(b.load(element(b, results, lane, I32), typ=I32), wave.vgpr_ptr(vdst, lane))
        return []

    counted_loop(b, wave.wave_size, [], write)
    b.ret(const(int(Status.NEXT), I32))
