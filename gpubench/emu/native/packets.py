"""A compute queue's common PM4 packets in native code, without the GIL: ``i64 pm4_pass(ptr state)``.

A tinygrad dispatch is about 17 packets (two WAIT_REG_MEM, ACQUIRE_MEM, a dozen SET_SH_REG,
DISPATCH_DIRECT, EVENT_WRITE, two RELEASE_MEM). Run in Python, with the dispatch's set-up, they cost
the client's interpreter a few hundred µs for a dispatch whose waves run in a few µs; here they cost
microseconds and the client's Python runs beside them. Python (cp/pm4.py) stays the command processor
of record: this pass runs the packets it knows from the read pointer on and stops at the first one it
leaves to Python, which runs it (and reports whatever is wrong with it) and calls the pass again.

Run here, with the semantics of cp/pm4.py's handlers: NOP and type-2 fillers, SET_SH_REG,
SET_UCONFIG_REG, ACQUIRE_MEM, EVENT_WRITE, WAIT_REG_MEM (memory and register space, the
write-then-wait form), RELEASE_MEM with DATA_SEL 0-2 (its interrupt queued for Python to raise, in
order, when the pass returns), and DISPATCH_DIRECT when a `DispatchPlan` (native/plans.py) matches the
dispatch's registers and its code is still the code the plan was made for. Everything else stops the
pass with the read pointer on the packet: other packets, a malformed header, a packet running past
the write pointer, too short a body, an address no mapping holds (Python raises the page fault), a
full interrupt list. A packet is either run whole or not at all, with one exception: a planned
dispatch whose waves did not all reach s_endpgm in one call of the wave loop (a barrier, an
instruction for the reference engine, an unbound PC, the budget) stops the pass as UNFINISHED, and
Python runs the rest of that dispatch from the plan's waves.
"""
from __future__ import annotations

import ctypes
import enum
import functools

import llvmlite.binding as llvm
from llvmlite import ir

from gpubench.emu.hostmem import libc
from gpubench.emu.native import build
from gpubench.emu.native.build import I1, I32, I64, PTR, Code, const, element, set_word, word
from gpubench.emu.native.layout import Dispatch, Status
from gpubench.emu.native.memory import find_function
from gpubench.emu.waves import SGPRS

# the packets' opcodes and registers, as cp/pm4.py names them (a cycle forbids importing them)
NOP, DISPATCH_DIRECT, WAIT_REG_MEM, EVENT_WRITE, RELEASE_MEM, ACQUIRE_MEM, SET_SH_REG, SET_UCONFIG_REG = (
    0x10, 0x15, 0x3C, 0x46, 0x49, 0x58, 0x76, 0x79)
SH_REG_BASE, UCONFIG_REG_BASE, COMPUTE_USER_DATA_0 = 0x2C00, 0xC000, 0x2E40
REGISTER_SPACE = 1 << 18  # WAIT_REG_MEM and COPY_DATA name registers by 18 bits; SET_*_REG reach below
MAX_INTERRUPTS = 256
CLOCK_MONOTONIC = 1


class Stop(enum.IntEnum):
    """Why a pass returned; the read pointer names the packet of the last three."""

    CAUGHT_UP = 0  # at the write pointer
    PYTHON = 1  # the packet is Python's to run
    WAITING = 2  # a WAIT_REG_MEM not satisfied
    UNFINISHED = 3  # a planned dispatch ran but not every wave ended (State.STOPPED_PLAN names it)


class State:
    """Slots of a pass's state block (64-bit words)."""

    RING = 0  # host address of the ring's first dword
    RING_DWORDS = 1
    READ = 2  # read pointer, in dwords, counting up without wrapping
    WRITE = 3  # write pointer
    REGISTERS = 4  # uint32 [REGISTER_SPACE]
    MEMORY = 5  # a dispatch block whose MAPS, MAP_COUNT and LAST_MAP the packets' accesses use
    PLANS = 6  # int64 [plans, PlanRow.WORDS]
    PLAN_COUNT = 7
    INTERRUPTS = 8  # uint32 [MAX_INTERRUPTS]: RELEASE_MEM INT_CTXIDs, in order
    INTERRUPT_COUNT = 9
    PACKETS = 10  # counters the pass adds to
    DISPATCHES = 11
    WAVE_INSTRUCTIONS = 12
    EMULATION_NS = 13
    PLANS_RUN = 14  # bit p: plan p ran a dispatch
    STOPPED_PLAN = 15
    SLOTS = 16


# what a plan matches: registers, then DISPATCH_DIRECT's body (grid x, y, z, DISPATCH_INITIATOR)
KEY_REGISTERS = (0x2E0C, 0x2E0D, 0x2E12, 0x2E13, 0x2E28, 0x2E18, 0x2E07, 0x2E08, 0x2E09, 0x2E04, 0x2E05, 0x2E06)
KEY_BODY_WORDS = 4


class PlanRow:
    """A row of the plan table: what native code matches a DISPATCH_DIRECT against."""

    VALID = 0  # 0: a free row
    BLOCK = 1  # the plan's block (PlanSlot)
    KEY = 2  # len(KEY_REGISTERS) register values, then KEY_BODY_WORDS body words
    WORDS = KEY + len(KEY_REGISTERS) + KEY_BODY_WORDS


class PlanSlot:
    """Slots of a plan's block."""

    DISPATCH = 0  # the engine's dispatch block, filled for the plan's waves (engine.py)
    LOOP = 1  # the wave loop's address
    GENERATION = 2  # -> int64: the program's binding generation, which must still be ...
    EXPECTED_GENERATION = 3  # ... this one
    CODE = 4  # the code window's GPU address ...
    CODE_BYTES = 5
    CODE_COPY = 6  # ... and a copy of its bytes when the plan was made
    COPIES = 7  # int64 [copies, 3]: (destination, source or 0 for zeros, bytes) restoring the start state
    COPY_COUNT = 8
    WAVES = 9
    SGPR = 10  # uint32 [waves, SGPRS]: where the user SGPRs go
    USER_SGPRS = 11
    STATUSES = 12  # int32 [waves]
    BUDGET = 13
    SLOTS = 14


# bound to this process's libc (objects are cached on disk)
_LIBC = {"memcmp": (I32, [PTR, PTR, I64]), "memcpy": (PTR, [PTR, PTR, I64]), "memset": (PTR, [PTR, I32, I64]),
         "clock_gettime": (I32, [I32, PTR])}
SYMBOL_PREFIX = "gpubench_pm4_"
_CODE = Code("pm4 pass v1", lambda module, name: _define(module, name))


def _define(module: ir.Module, name: str) -> None:
    c = {n: ir.Function(module, ir.FunctionType(r, a), SYMBOL_PREFIX + n) for n, (r, a) in _LIBC.items()}
    find = find_function(module)
    dispatch_fn = _define_dispatch(module, c, find)
    fn = ir.Function(module, ir.FunctionType(I64, [PTR]), name)
    s = fn.args[0]
    blocks = {n: fn.append_basic_block(n) for n in (
        "entry", "packet", "header", "filler", "type3", "body", "next", "python", "waiting", "caught_up",
        "set_sh", "set_uconfig", "set_regs", "set_loop", "set_one", "wait", "wait_memory", "wait_register",
        "wait_compare", "release", "release_data", "release_32", "release_64", "release_interrupt", "dispatch",
        "dispatched", "event_write")}
    b = ir.IRBuilder(blocks["entry"])
    ring, ring_dwords = word(b, s, State.RING, PTR), word(b, s, State.RING_DWORDS)
    registers, memory = word(b, s, State.REGISTERS, PTR), word(b, s, State.MEMORY, PTR)
    b.branch(blocks["packet"])

    def go(name_):
        b.position_at_end(blocks[name_])

    def ring_word(pointer):
        return b.zext(b.load(element(b, ring, b.urem(pointer, ring_dwords), I32), typ=I32), I64)

    def register(index):
        return element(b, registers, index, I32)

    def ret(stop):
        b.ret(const(int(stop)))

    go("packet")
    read, write = word(b, s, State.READ), word(b, s, State.WRITE)
    b.cbranch(b.icmp_unsigned(">=", read, write), blocks["caught_up"], blocks["header"])
    go("caught_up")
    ret(Stop.CAUGHT_UP)
    go("python")
    ret(Stop.PYTHON)
    go("waiting")
    ret(Stop.WAITING)

    go("header")
    header = ring_word(read)
    kind = b.lshr(header, const(30))
    b.cbranch(b.icmp_unsigned("==", kind, const(2)), blocks["filler"], blocks["type3"])
    go("filler")
    set_word(b, s, State.READ, b.add(read, const(1)))
    set_word(b, s, State.PACKETS, b.add(word(b, s, State.PACKETS), const(1)))
    b.branch(blocks["packet"])

    go("type3")
    length = b.add(b.and_(b.lshr(header, const(16)), const(0x3FFF)), const(2))
    fits = b.and_(b.icmp_unsigned("==", kind, const(3)),
                  b.and_(b.icmp_unsigned("<=", length, b.sub(write, read)), b.icmp_unsigned("<=", length, ring_dwords)))
    b.cbranch(fits, blocks["body"], blocks["python"])

    go("body")
    body_count = b.sub(length, const(1))
    opcode = b.and_(b.lshr(header, const(8)), const(0xFF))

    def body(i):
        return ring_word(b.add(read, const(1 + i)))

    def needs(count):  # the handler's minimum body; the same test cp/pm4.py makes
        return b.icmp_unsigned(">=", body_count, const(count))

    switch = b.switch(opcode, blocks["python"])
    for code, target in ((NOP, "next"), (ACQUIRE_MEM, "next"), (EVENT_WRITE, "event_write"), (SET_SH_REG, "set_sh"),
                         (SET_UCONFIG_REG, "set_uconfig"), (WAIT_REG_MEM, "wait"), (RELEASE_MEM, "release"),
                         (DISPATCH_DIRECT, "dispatch")):
        switch.add_case(const(code), blocks[target])

    go("next")
    set_word(b, s, State.READ, b.add(read, length))
    set_word(b, s, State.PACKETS, b.add(word(b, s, State.PACKETS), const(1)))
    b.branch(blocks["packet"])

    go("event_write")
    b.cbranch(needs(1), blocks["next"], blocks["python"])

    # SET_SH_REG / SET_UCONFIG_REG: body[0]'s low 16 bits name the first register, values follow
    first = {}
    for kind_name, base in (("set_sh", SH_REG_BASE), ("set_uconfig", UCONFIG_REG_BASE)):
        go(kind_name)
        first[kind_name] = b.add(const(base), b.and_(body(0), const(0xFFFF)))
        b.cbranch(needs(1), blocks["set_regs"], blocks["python"])
    go("set_regs")
    start = b.phi(I64, "first")
    for kind_name in first:
        start.add_incoming(first[kind_name], blocks[kind_name])
    b.branch(blocks["set_loop"])
    go("set_loop")
    i = b.phi(I64, "i")
    i.add_incoming(const(1), blocks["set_regs"])
    b.cbranch(b.icmp_unsigned("<", i, body_count), blocks["set_one"], blocks["next"])
    go("set_one")
    b.store(b.trunc(ring_word(b.add(read, b.add(i, const(1)))), I32), register(b.add(start, b.sub(i, const(1)))))
    i.add_incoming(b.add(i, const(1)), blocks["set_one"])
    b.branch(blocks["set_loop"])

    # WAIT_REG_MEM: FUNCTION, MEM_SPACE, OPERATION in body[0]; address or registers; reference; mask
    go("wait")
    control = body(0)
    function = b.and_(control, const(7))
    mem_space, operation = b.and_(b.lshr(control, const(4)), const(3)), b.and_(b.lshr(control, const(6)), const(3))
    reference, mask = body(3), body(4)
    b.cbranch(b.and_(needs(6), b.icmp_unsigned("<=", function, const(6))), blocks["wait_memory"], blocks["python"])
    go("wait_memory")
    on_memory = fn.append_basic_block("wait_memory_read")
    b.cbranch(b.icmp_unsigned("==", mem_space, const(1)), on_memory, blocks["wait_register"])
    b.position_at_end(on_memory)
    address = b.or_(b.and_(body(1), const(~3 & 0xFFFFFFFF)), b.shl(body(2), const(32)))
    host = b.call(find, [memory, address, const(4), ir.Constant(I1, 0)])
    read_memory = fn.append_basic_block("wait_memory_value")
    b.cbranch(b.icmp_unsigned("==", host, const(0)), blocks["python"], read_memory)
    b.position_at_end(read_memory)
    memory_value = b.zext(b.load_atomic(b.inttoptr(host, PTR), "acquire", 4, typ=I32), I64)
    b.branch(blocks["wait_compare"])
    go("wait_register")
    request, done = b.and_(body(1), const(0x3FFFF)), b.and_(body(2), const(0x3FFFF))
    write_then_wait = b.icmp_unsigned("==", operation, const(1))
    with b.if_then(write_then_wait):  # the request/done pair completes at once (cp/pm4.py)
        b.store(b.trunc(reference, I32), register(request))
        b.store(b.trunc(reference, I32), register(done))
    register_value = b.select(write_then_wait, reference, b.zext(b.load(register(request), typ=I32), I64))
    register_block = b.block
    b.branch(blocks["wait_compare"])
    go("wait_compare")
    value = b.phi(I64, "value")
    value.add_incoming(memory_value, read_memory)
    value.add_incoming(register_value, register_block)
    masked = b.and_(value, mask)
    satisfied = ir.Constant(I1, 1)  # FUNCTION 0: always
    for code, predicate in ((1, "<"), (2, "<="), (3, "=="), (4, "!="), (5, ">="), (6, ">")):
        satisfied = b.select(b.icmp_unsigned("==", function, const(code)),
                             b.icmp_unsigned(predicate, masked, reference), satisfied)
    b.cbranch(satisfied, blocks["next"], blocks["waiting"])

    # RELEASE_MEM: DATA_SEL 0 (none), 1 (32 bits), 2 (64 bits); INT_SEL queues an interrupt
    go("release")
    control = body(1)
    data_sel, int_sel = b.and_(b.lshr(control, const(29)), const(7)), b.and_(b.lshr(control, const(24)), const(7))
    interrupts = word(b, s, State.INTERRUPT_COUNT)
    room = b.or_(b.icmp_unsigned("==", int_sel, const(0)), b.icmp_unsigned("<", interrupts, const(MAX_INTERRUPTS)))
    b.cbranch(b.and_(b.and_(needs(7), room), b.icmp_unsigned("<=", data_sel, const(2))),
              blocks["release_data"], blocks["python"])
    go("release_data")
    address = b.or_(body(2), b.shl(body(3), const(32)))
    data = b.or_(body(4), b.shl(body(5), const(32)))
    size = b.select(b.icmp_unsigned("==", data_sel, const(2)), const(8), const(4))
    no_data = fn.append_basic_block("release_no_data")
    with_data = fn.append_basic_block("release_with_data")
    b.cbranch(b.icmp_unsigned("==", data_sel, const(0)), no_data, with_data)
    b.position_at_end(with_data)
    host = b.call(find, [memory, address, size, ir.Constant(I1, 1)])
    written = fn.append_basic_block("release_write")
    b.cbranch(b.icmp_unsigned("==", host, const(0)), blocks["python"], written)
    b.position_at_end(written)  # release: what the dispatches wrote is visible before the signal
    b.cbranch(b.icmp_unsigned("==", data_sel, const(2)), blocks["release_64"], blocks["release_32"])
    go("release_64")
    b.store_atomic(data, b.inttoptr(host, I64.as_pointer()), "release", 8)
    b.branch(blocks["release_interrupt"])
    go("release_32")
    b.store_atomic(b.trunc(data, I32), b.inttoptr(host, I32.as_pointer()), "release", 4)
    b.branch(blocks["release_interrupt"])
    b.position_at_end(no_data)
    b.branch(blocks["release_interrupt"])
    go("release_interrupt")
    with b.if_then(b.icmp_unsigned("!=", int_sel, const(0))):
        b.store(b.trunc(body(6), I32), element(b, word(b, s, State.INTERRUPTS, PTR), interrupts, I32))
        set_word(b, s, State.INTERRUPT_COUNT, b.add(interrupts, const(1)))
    b.branch(blocks["next"])

    # DISPATCH_DIRECT through a plan
    go("dispatch")
    outcome = fn.append_basic_block("dispatch_call")
    b.cbranch(needs(KEY_BODY_WORDS), outcome, blocks["python"])
    b.position_at_end(outcome)
    stop = b.call(dispatch_fn, [s, read])
    b.cbranch(b.icmp_unsigned("==", stop, const(int(Stop.CAUGHT_UP))), blocks["next"], blocks["dispatched"])
    go("dispatched")
    b.ret(stop)


def _define_dispatch(module: ir.Module, c: dict, find: ir.Function) -> ir.Function:
    """``i64 dispatch(ptr state, i64 read)``: the DISPATCH_DIRECT at ``read`` through the first plan
    matching it; CAUGHT_UP when it ran to its end, PYTHON when no plan can run it, UNFINISHED."""
    fn = ir.Function(module, ir.FunctionType(I64, [PTR, I64]), "dispatch")
    fn.linkage = "internal"
    s, read = fn.args
    entry, scan, compare, next_plan, matched, copy, copied, users, user_wave, user_sgpr, run, ended, check, \
        finished, unfinished, python = (fn.append_basic_block(n) for n in (
            "entry", "scan", "compare", "next_plan", "matched", "copy", "copied", "users", "user_wave", "user_sgpr",
            "run", "ended", "check", "finished", "unfinished", "python"))
    b = ir.IRBuilder(entry)
    ring, ring_dwords = word(b, s, State.RING, PTR), word(b, s, State.RING_DWORDS)
    registers, plans, plan_count = word(b, s, State.REGISTERS, PTR), word(b, s, State.PLANS, PTR), word(b, s, State.PLAN_COUNT)
    key = [b.zext(b.load(element(b, registers, const(r), I32), typ=I32), I64) for r in KEY_REGISTERS]
    key += [b.zext(b.load(element(b, ring, b.urem(b.add(read, const(1 + i)), ring_dwords), I32), typ=I32), I64)
            for i in range(KEY_BODY_WORDS)]
    b.branch(scan)

    b.position_at_end(python)
    b.ret(const(int(Stop.PYTHON)))

    b.position_at_end(scan)
    p = b.phi(I64, "plan")
    p.add_incoming(const(0), entry)
    b.cbranch(b.icmp_unsigned("<", p, plan_count), compare, python)
    b.position_at_end(compare)
    row = b.gep(plans, [b.mul(p, const(PlanRow.WORDS))], source_etype=I64)
    same = b.icmp_unsigned("!=", word(b, row, PlanRow.VALID), const(0))
    for k, value in enumerate(key):
        same = b.and_(same, b.icmp_unsigned("==", word(b, row, PlanRow.KEY + k), value))
    b.cbranch(same, matched, next_plan)
    b.position_at_end(next_plan)
    p.add_incoming(b.add(p, const(1)), next_plan)
    b.branch(scan)

    # the plan still holds: its program bound as when it was made, its code unchanged in memory
    b.position_at_end(matched)
    plan = word(b, row, PlanRow.BLOCK, PTR)
    current = b.icmp_unsigned("==", b.load(word(b, plan, PlanSlot.GENERATION, PTR), typ=I64),
                              word(b, plan, PlanSlot.EXPECTED_GENERATION))
    code_bytes = word(b, plan, PlanSlot.CODE_BYTES)
    with b.if_then(b.not_(current)):
        b.ret(const(int(Stop.PYTHON)))
    memory = word(b, s, State.MEMORY, PTR)
    code = b.call(find, [memory, word(b, plan, PlanSlot.CODE), code_bytes, ir.Constant(I1, 0)])
    with b.if_then(b.icmp_unsigned("==", code, const(0))):
        b.ret(const(int(Stop.PYTHON)))
    differs = b.call(c["memcmp"], [b.inttoptr(code, PTR), word(b, plan, PlanSlot.CODE_COPY, PTR), code_bytes])
    with b.if_then(b.icmp_signed("!=", differs, const(0, I32))):
        b.ret(const(int(Stop.PYTHON)))
    copies, copy_count = word(b, plan, PlanSlot.COPIES, PTR), word(b, plan, PlanSlot.COPY_COUNT)
    before_copies = b.block
    b.branch(copy)

    # the waves' start state, LDS and scratch zeroed
    b.position_at_end(copy)
    j = b.phi(I64, "copy")
    j.add_incoming(const(0), before_copies)
    one_copy, zeros, data, copy_done = (fn.append_basic_block(n) for n in ("one_copy", "zeros", "data", "copy_done"))
    b.cbranch(b.icmp_unsigned("<", j, copy_count), one_copy, copied)
    b.position_at_end(one_copy)
    row_ = b.gep(copies, [b.mul(j, const(3))], source_etype=I64)
    destination, source, size = (b.inttoptr(word(b, row_, k), PTR) if k < 2 else word(b, row_, k) for k in range(3))
    b.cbranch(b.icmp_unsigned("==", b.ptrtoint(source, I64), const(0)), zeros, data)
    b.position_at_end(zeros)
    b.call(c["memset"], [destination, const(0, I32), size])
    b.branch(copy_done)
    b.position_at_end(data)
    b.call(c["memcpy"], [destination, source, size])
    b.branch(copy_done)
    b.position_at_end(copy_done)
    j.add_incoming(b.add(j, const(1)), copy_done)
    b.branch(copy)

    # the user SGPRs, from COMPUTE_USER_DATA_*, into every wave
    b.position_at_end(copied)
    wave_count, user_count = word(b, plan, PlanSlot.WAVES), word(b, plan, PlanSlot.USER_SGPRS)
    sgprs = word(b, plan, PlanSlot.SGPR, PTR)
    b.branch(users)
    b.position_at_end(users)
    w = b.phi(I64, "wave")
    w.add_incoming(const(0), copied)
    next_wave = fn.append_basic_block("next_wave")
    b.cbranch(b.icmp_unsigned("<", w, wave_count), user_wave, run)
    b.position_at_end(user_wave)
    u = b.phi(I64, "user")
    u.add_incoming(const(0), users)
    b.cbranch(b.icmp_unsigned("<", u, user_count), user_sgpr, next_wave)
    b.position_at_end(user_sgpr)
    value = b.load(element(b, registers, b.add(const(COMPUTE_USER_DATA_0), u), I32), typ=I32)
    b.store(value, element(b, sgprs, b.add(b.mul(w, const(SGPRS)), u), I32))
    u.add_incoming(b.add(u, const(1)), user_sgpr)
    b.branch(user_wave)
    b.position_at_end(next_wave)
    w.add_incoming(b.add(w, const(1)), next_wave)
    b.branch(users)

    # the wave loop, once: every wave from its entry
    b.position_at_end(run)
    d = word(b, plan, PlanSlot.DISPATCH, PTR)
    for slot in (Dispatch.MAPS, Dispatch.MAP_COUNT):
        set_word(b, d, slot, word(b, memory, slot))
    set_word(b, d, Dispatch.BUDGET, word(b, plan, PlanSlot.BUDGET))
    set_word(b, d, Dispatch.WAVE_INSTRUCTIONS, const(0))
    set_word(b, d, Dispatch.LANE_OPERATIONS, const(0))
    timespec = b.bitcast(b.alloca(I64, size=2), PTR)

    def now():
        b.call(c["clock_gettime"], [const(CLOCK_MONOTONIC, I32), timespec])
        seconds, nanoseconds = (b.load(element(b, timespec, const(k), I64), typ=I64) for k in (0, 1))
        return b.add(b.mul(seconds, const(1_000_000_000)), nanoseconds)

    started = now()
    loop = b.inttoptr(word(b, plan, PlanSlot.LOOP), ir.FunctionType(ir.VoidType(), [PTR]).as_pointer())
    b.call(loop, [d])
    set_word(b, s, State.EMULATION_NS, b.add(word(b, s, State.EMULATION_NS), b.sub(now(), started)))
    statuses = word(b, plan, PlanSlot.STATUSES, PTR)
    b.branch(check)
    b.position_at_end(check)
    k = b.phi(I64, "status")
    k.add_incoming(const(0), run)
    b.cbranch(b.icmp_unsigned("<", k, wave_count), ended, finished)
    b.position_at_end(ended)
    status = b.load(element(b, statuses, k, I32), typ=I32)
    k.add_incoming(b.add(k, const(1)), ended)
    b.cbranch(b.icmp_signed("==", status, const(int(Status.END), I32)), check, unfinished)

    b.position_at_end(finished)
    set_word(b, s, State.DISPATCHES, b.add(word(b, s, State.DISPATCHES), const(1)))
    set_word(b, s, State.WAVE_INSTRUCTIONS, b.add(word(b, s, State.WAVE_INSTRUCTIONS), word(b, d, Dispatch.WAVE_INSTRUCTIONS)))
    set_word(b, s, State.PLANS_RUN, b.or_(word(b, s, State.PLANS_RUN), b.shl(const(1), b.and_(p, const(63)))))
    b.ret(const(int(Stop.CAUGHT_UP)))
    b.position_at_end(unfinished)
    set_word(b, s, State.STOPPED_PLAN, p)
    b.ret(const(int(Stop.UNFINISHED)))
    return fn


@functools.cache
def pass_function():
    """The pass as a ctypes function that lets go of the GIL while it runs."""
    for name in _LIBC:
        llvm.add_symbol(SYMBOL_PREFIX + name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
    return ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)(build.addresses([_CODE])[_CODE.key])
