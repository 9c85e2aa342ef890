"""Native handlers for scalar loads and GLOBAL loads and stores, with every access checked natively.

An access is looked up in the dispatch block's map table (base, end, host address, writable; sorted by
base: the AddressSpace's mappings) through a one-entry TLB, then by binary search. A handler checks
every active lane first and gives the instruction to the reference engine if any lane is outside
every mapping (or writes a read-only one): nothing has been written then, and the reference engine
raises the same PageFault, naming the address and lane, that a reference run raises. Only then does it
move the data, lane by lane in lane order (a later lane wins an overlapping store, as in memory.py).

A scalar load reads whole dwords, or (gfx12's S_LOAD/S_BUFFER_LOAD_U8/I8/U16/I16) one byte or half
zero- or sign-extended into its SGPR; an S_BUFFER load's address starts at its descriptor's base (bits
47:0). Left to the reference engine: SCRATCH and FLAT (apertures), GLOBAL_*_ADDTID, atomics, buffer
and LDS instructions, and gfx9's SGPR offset form of SMEM.
"""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from gpubench.emu.context import Context
from gpubench.emu.native import lane_data
from gpubench.emu.native.alu import Bound, Operands, new_handler, lane_mask
from gpubench.emu.native.build import I1, I8, I32, I64, PTR, Code, const, counted_loop, element, word
from gpubench.emu.native.layout import MAP_WORDS, Dispatch, Frame, Status
from gpubench.emu.ops import memory_ops
from gpubench.emu.ops.lane_data import SUBDWORD, data_access
from gpubench.emu.waves import EXEC_LO, SGPRS
from gpubench.isa.decoder import Instruction

SCALAR_DESTINATION_END = 124  # SMEM data goes to SGPRs below NULL/M0 (memory_ops.scalar_load)


def find_function(module: ir.Module) -> ir.Function:
    """``i64 find(ptr dispatch, i64 address, i64 size, i1 write)``: the host address of ``size`` bytes
    at ``address`` if one mapping holds them all (and is writable for a write), else 0."""
    fn = ir.Function(module, ir.FunctionType(I64, [PTR, I64, I64, I1]), "find")
    fn.linkage = "internal"
    d, address, size, write = fn.args
    entry, search, step, found_index = (fn.append_basic_block(n) for n in ("entry", "search", "step", "found_index"))
    b = ir.IRBuilder(entry)
    maps, count = word(b, d, Dispatch.MAPS, PTR), word(b, d, Dispatch.MAP_COUNT)

    def holds(b, index):
        row = b.mul(index, const(MAP_WORDS))
        base = b.load(element(b, maps, row, I64), typ=I64)
        end = b.load(element(b, maps, b.add(row, const(1)), I64), typ=I64)
        writable = b.load(element(b, maps, b.add(row, const(3)), I64), typ=I64)
        inside = b.and_(b.icmp_unsigned(">=", address, base), b.icmp_unsigned("<", address, end))
        inside = b.and_(inside, b.icmp_unsigned("<=", size, b.sub(end, address)))
        allowed = b.or_(b.not_(write), b.icmp_unsigned("!=", writable, const(0)))
        host = b.load(element(b, maps, b.add(row, const(2)), I64), typ=I64)
        return b.and_(inside, allowed), b.add(host, b.sub(address, base))

    last = word(b, d, Dispatch.LAST_MAP)
    last_valid = b.icmp_unsigned("<", last, count)
    with b.if_then(last_valid):
        ok, host = holds(b, last)
        with b.if_then(ok):
            b.ret(host)
    before = b.block
    b.branch(search)
    # binary search: the last mapping whose base is at or below the address
    b.position_at_end(search)
    lo, hi = b.phi(I64, "lo"), b.phi(I64, "hi")
    lo.add_incoming(const(0), before)
    hi.add_incoming(count, before)
    b.cbranch(b.icmp_unsigned(">=", lo, hi), found_index, step)
    b.position_at_end(step)
    mid = b.lshr(b.add(lo, hi), const(1))
    below = b.icmp_unsigned("<=", b.load(element(b, maps, b.mul(mid, const(MAP_WORDS)), I64), typ=I64), address)
    lo.add_incoming(b.select(below, b.add(mid, const(1)), lo), step)
    hi.add_incoming(b.select(below, hi, mid), step)
    b.branch(search)
    b.position_at_end(found_index)
    index = b.sub(lo, const(1))
    with b.if_then(b.icmp_signed(">=", index, const(0))):
        ok, host = holds(b, index)
        with b.if_then(ok):
            b.store(index, element(b, d, const(int(Dispatch.LAST_MAP)), I64))
            b.ret(host)
    b.ret(const(0))
    return fn


def _address_parts(b, frame, record, lane, wave_size: int, saddr: bool) -> ir.Value:
    """A GLOBAL lane's address: the VGPR pair, or the SGPR pair plus the VGPR's 32-bit offset; plus
    the immediate (record words 0: vaddr, 1: saddr, 2: immediate)."""
    vgpr, stride = word(b, frame, Frame.VGPR, PTR), const(wave_size)
    first = b.add(b.mul(Operands.read(b, record, 0), stride), lane)
    low = b.zext(b.load(element(b, vgpr, first, I32), typ=I32), I64)
    if saddr:
        sgpr = word(b, frame, Frame.SGPR, PTR)
        reg = Operands.read(b, record, 1)
        base = b.or_(b.zext(b.load(element(b, sgpr, reg, I32), typ=I32), I64),
                     b.shl(b.zext(b.load(element(b, sgpr, b.add(reg, const(1)), I32), typ=I32), I64), const(32)))
        address = b.add(base, low)
    else:
        high = b.zext(b.load(element(b, vgpr, b.add(first, stride), I32), typ=I32), I64)
        address = b.or_(low, b.shl(high, const(32)))
    return b.add(address, Operands.read(b, record, 2))


def bind_global(inst: Instruction, ctx: Context) -> Bound | None:
    root = inst.isa.root_of(inst.fmt)
    tokens = inst.name.split("_")
    if memory_ops.VECTOR_FAMILIES.get(root) != "global" or "ATOMIC" in tokens or tokens[1] not in ("LOAD", "STORE"):
        return None
    load = tokens[1] == "LOAD"
    if any(t in tokens for t in ("LDS", "BLOCK", "TR")) or inst.get("acc"):
        return None
    if not (inst.idef.operand("addr") or inst.idef.operand("vaddr")):
        return None  # GLOBAL_*_ADDTID
    data = inst.idef.operand("vdst") if load else inst.idef.operand("data") or inst.idef.operand("vsrc")
    access = data_access(inst.name, data.bits)
    vaddr, saddr = memory_ops.field(inst, "addr", "vaddr"), memory_ops.saddr_register(inst)
    data_reg = inst[data.field]
    vgprs = ctx.waves.vgpr.shape[1]
    if vaddr + (1 if saddr is not None else 2) > vgprs or data_reg + access.dwords > vgprs or \
            (saddr is not None and saddr + 1 >= SGPRS):
        return None  # the reference engine reports it
    words = Operands()
    for value in (vaddr, saddr or 0, memory_ops.immediate_offset(inst), data_reg):
        words.add(value)
    wave_size = ctx.waves.wave_size
    key = f"global {tokens[1].lower()} wave{wave_size} {access} saddr={saddr is not None}"
    return Bound(Code(key, lambda module, name: _define_global(module, name, load, access, saddr is not None,
                                                             wave_size)), tuple(words.words))


def _define_global(module, symbol, load: bool, access, saddr: bool, wave_size: int) -> None:
    find = find_function(module)
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    d = word(b, frame, Frame.DISPATCH, PTR)
    exec_mask = lane_mask(b, frame, const(EXEC_LO), wave_size)
    hosts = b.bitcast(b.alloca(I64, size=wave_size), PTR)

    def check(b, lane, carried):
        active = b.trunc(b.and_(b.lshr(exec_mask, lane), const(1)), I1)
        address = _address_parts(b, frame, record, lane, wave_size, saddr)
        host = b.call(find, [d, address, const(access.size), const(int(not load), I1)])
        host = b.select(active, host, const(1))  # (disabled lanes: any nonzero)
        b.store(host, element(b, hosts, lane, I64))
        return [b.or_(carried[0], b.icmp_unsigned("==", host, const(0)))]

    faulted = counted_loop(b, wave_size, [const(0, I1)], check)[0]
    with b.if_then(faulted):
        b.ret(const(int(Status.REFERENCE), I32))
    vgpr, stride = word(b, frame, Frame.VGPR, PTR), const(wave_size)
    data_reg = Operands.read(b, record, 3)

    def move(b, lane, carried):
        active = b.trunc(b.and_(b.lshr(exec_mask, lane), const(1)), I1)
        with b.if_then(active):
            host = b.inttoptr(b.load(element(b, hosts, lane, I64), typ=I64), PTR)
            first = b.add(b.mul(data_reg, stride), lane)

            def registers(k):
                return element(b, vgpr, b.add(first, const(k * wave_size)), I32)

            if load:
                lane_data.to_vgprs(b, registers, host, access)
            else:
                for k, value in enumerate(lane_data.from_vgprs(b, registers, access)):
                    b.store(value, b.gep(host, [const(4 * k)], source_etype=I8), align=1)
        return []

    counted_loop(b, wave_size, [], move)
    b.ret(const(int(Status.NEXT), I32))


@dataclass(frozen=True)
class ScalarLoad:
    size: int  # bytes read: whole dwords, or a byte or half (extended into one SGPR)
    signed: bool  # a byte or half is sign-extended
    soffset: bool  # an SGPR offset is added
    buffer: bool  # the SGPRs at sbase are a buffer descriptor: its base is bits 47:0


def bind_scalar_load(inst: Instruction, ctx: Context) -> Bound | None:
    if inst.isa.root_of(inst.fmt) != "SMEM" or "LOAD" not in inst.name:
        return None
    if inst.get("imm", 1) == 0 and not inst.get("soffset_en"):
        return None  # gfx9: an SGPR in the offset field
    dwords = inst.idef.operand("sdata").bits // 32
    size, signed = SUBDWORD.get(inst.name.rsplit("_", 1)[-1], (4 * dwords, False))
    sbase, reg = inst["sbase"] * 2, inst["sdata"]
    if reg + dwords > SCALAR_DESTINATION_END or sbase + 1 >= SGPRS:
        return None
    name = "ioffset" if inst.fmt.field("ioffset") else "offset"
    offset = memory_ops.signed(inst[name], inst.fmt.field(name).width)
    soffset = inst.get("soffset")
    uses_soffset = soffset is not None and (inst.get("soffset_en", 1) if inst.isa.arch == "cdna"
                                            else soffset != memory_ops.NULL_RDNA)
    if uses_soffset and soffset >= SGPRS:
        return None
    words = Operands()
    for value in (sbase, offset, soffset if uses_soffset else 0, reg):
        words.add(value)
    load = ScalarLoad(size, signed, bool(uses_soffset), inst.name.startswith("S_BUFFER_"))
    return Bound(Code(f"smem {load}", lambda module, symbol: _define_scalar_load(module, symbol, load)),
                 tuple(words.words))


def _define_scalar_load(module, symbol, load: ScalarLoad) -> None:
    find = find_function(module)
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    sgpr = word(b, frame, Frame.SGPR, PTR)
    sbase = Operands.read(b, record, 0)
    base = b.or_(b.zext(b.load(element(b, sgpr, sbase, I32), typ=I32), I64),
                 b.shl(b.zext(b.load(element(b, sgpr, b.add(sbase, const(1)), I32), typ=I32), I64), const(32)))
    if load.buffer:
        base = b.and_(base, const((1 << 48) - 1))
    address = b.add(base, Operands.read(b, record, 1))
    if load.soffset:
        address = b.add(address, b.zext(b.load(element(b, sgpr, Operands.read(b, record, 2), I32), typ=I32), I64))
    host = b.call(find, [word(b, frame, Frame.DISPATCH, PTR), address, const(load.size), const(0, I1)])
    with b.if_then(b.icmp_unsigned("==", host, const(0))):
        b.ret(const(int(Status.REFERENCE), I32))
    host = b.inttoptr(host, PTR)
    reg = Operands.read(b, record, 3)
    if load.size < 4:
        raw = b.load(host, typ=lane_data.INT[load.size], align=1)
        values = [b.sext(raw, I32) if load.signed else b.zext(raw, I32)]
    else:
        values = lane_data.dwords(b, host, load.size // 4)
    for k, value in enumerate(values):
        b.store(value, element(b, sgpr, b.add(reg, const(k)), I32))
    b.ret(const(int(Status.NEXT), I32))
