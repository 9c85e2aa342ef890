"""The native wave loop: ``void run_waves(ptr dispatch)`` runs each wave of the dispatch block's wave
list until it stops, and writes why into the status list.

For one wave it looks the PC up in the record table (a dword index into the code), counts the
instruction's active lanes (EXEC before it runs, as the reference engine does), calls the record's
handler through its address (threaded code) and acts on the Status it returns. It stops the wave at
s_endpgm, a barrier, an instruction the reference engine must run, a PC without a record, or when the
call's budget of wave-instructions is spent; the PC then names the instruction to run next.
"""
from __future__ import annotations

from llvmlite import ir

from gpubench.emu.native.build import HANDLER_TYPE, I8, I32, I64, PTR, Code, const, element, set_word, word
from gpubench.emu.native.layout import RECORD_FN, RECORD_SIZE, RECORD_WORDS, Binding, Dispatch, Frame, Status
from gpubench.emu.waves import EXEC_LO, SGPRS


def loop_code(wave_size: int) -> Code:
    return Code(f"loop wave{wave_size}", lambda module, name: _define(module, name, wave_size))


def _define(module: ir.Module, name: str, wave_size: int) -> None:
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR]), name)
    d = fn.args[0]
    entry, waves, fetch, run, counted, stop, next_wave, done = (
        fn.append_basic_block(n) for n in ("entry", "waves", "fetch", "run", "counted", "stop", "next_wave", "done"))
    b = ir.IRBuilder(entry)
    frame = b.bitcast(b.alloca(I64, size=int(Frame.SLOTS)), PTR)
    # the counters live in locals while waves run (LLVM keeps them in registers across the handler calls,
    # which could otherwise write the dispatch block) and go to the block when the call returns
    counters = (Dispatch.LANE_OPERATIONS, Dispatch.WAVE_INSTRUCTIONS, Dispatch.BUDGET)
    local = {slot: b.alloca(I64, name=f"counter{slot}") for slot in counters}
    for slot, pointer in local.items():
        b.store(word(b, d, slot), pointer)
    count = word(b, d, Dispatch.WAVE_COUNT)
    wave_list, statuses = word(b, d, Dispatch.WAVE_LIST, PTR), word(b, d, Dispatch.STATUS_LIST, PTR)
    sgpr_base, vgpr_base = word(b, d, Dispatch.SGPR, PTR), word(b, d, Dispatch.VGPR, PTR)
    stride = word(b, d, Dispatch.VGPR_STRIDE)
    pc_base, scc_base, mode_base = (word(b, d, s, PTR) for s in (Dispatch.PC, Dispatch.SCC, Dispatch.MODE))
    executed_base, reached = word(b, d, Dispatch.EXECUTED, PTR), word(b, d, Dispatch.REACHED, PTR)
    code_base, table = word(b, d, Dispatch.CODE_BASE), word(b, d, Dispatch.TABLE, PTR)
    table_bytes = b.shl(word(b, d, Dispatch.TABLE_LENGTH), const(2))
    records = word(b, d, Dispatch.RECORDS, PTR)
    b.cbranch(b.icmp_signed(">", count, const(0)), waves, done)

    # one wave: its frame
    b.position_at_end(waves)
    k = b.phi(I64, "k")
    k.add_incoming(const(0), entry)
    w = b.load(element(b, wave_list, k, I64), typ=I64)
    sgpr = b.gep(sgpr_base, [b.mul(w, const(4 * SGPRS))], source_etype=I8)
    pcp = element(b, pc_base, w, I64)
    slots = {Frame.SGPR: sgpr, Frame.VGPR: b.gep(vgpr_base, [b.mul(w, stride)], source_etype=I8),
             Frame.PC: pcp, Frame.SCC: element(b, scc_base, w, I8), Frame.MODE: element(b, mode_base, w, I32),
             Frame.DISPATCH: d}
    for slot, value in slots.items():
        set_word(b, frame, slot, b.ptrtoint(value, I64))
    set_word(b, frame, Frame.WAVE, w)
    executed = element(b, executed_base, w, I64)
    b.branch(fetch)

    # fetch: the record at the PC
    b.position_at_end(fetch)
    pc = b.load(pcp, typ=I64)
    offset = b.sub(pc, code_base)
    outside = b.or_(b.icmp_unsigned(">=", offset, table_bytes), b.icmp_unsigned("!=", b.and_(offset, const(3)), const(0)))
    check_index, check_budget, barrier = (fn.append_basic_block(n) for n in ("check_index", "check_budget", "barrier"))
    b.cbranch(outside, stop, check_index)
    b.position_at_end(check_index)
    index = b.sext(b.load(element(b, table, b.lshr(offset, const(2)), I32), typ=I32), I64)
    unbound_or_reference = b.select(b.icmp_signed("==", index, const(int(Binding.REFERENCE))),
                                    const(int(Status.REFERENCE), I32), const(int(Status.UNBOUND), I32))
    b.cbranch(b.icmp_signed("<", index, const(0)), stop, check_budget)
    b.position_at_end(check_budget)
    b.cbranch(b.icmp_signed("<=", b.load(local[Dispatch.BUDGET], typ=I64), const(0)), stop, run)

    # run: the handler, with the lanes EXEC enables counted first
    b.position_at_end(run)
    record = b.gep(records, [b.mul(index, const(RECORD_WORDS))], source_etype=I64)
    ctpop = module.declare_intrinsic("llvm.ctpop", [I32])
    lanes = b.zext(b.call(ctpop, [b.load(element(b, sgpr, const(EXEC_LO), I32), typ=I32)]), I64)
    if wave_size == 64:
        lanes = b.add(lanes, b.zext(b.call(ctpop, [b.load(element(b, sgpr, const(EXEC_LO + 1), I32), typ=I32)]), I64))
    handler = b.inttoptr(word(b, record, RECORD_FN), HANDLER_TYPE.as_pointer())
    status = b.call(handler, [frame, record])
    b.cbranch(b.icmp_unsigned("==", status, const(int(Status.REFERENCE), I32)), stop, counted)

    b.position_at_end(counted)
    for slot, delta in zip(counters, (lanes, const(1), const(-1)), strict=True):
        b.store(b.add(b.load(local[slot], typ=I64), delta), local[slot])
    b.store(b.add(b.load(executed, typ=I64), const(1)), executed)
    b.store(const(1, I8), element(b, reached, index, I8))
    size = word(b, record, RECORD_SIZE)
    advance = fn.append_basic_block("advance")
    switch = b.switch(status, stop)
    switch.add_case(const(int(Status.NEXT), I32), advance)
    switch.add_case(const(int(Status.JUMPED), I32), fetch)
    switch.add_case(const(int(Status.BARRIER), I32), barrier)
    b.position_at_end(advance)
    b.store(b.add(pc, size), pcp)
    b.branch(fetch)
    b.position_at_end(barrier)  # the wave waits at the next instruction
    b.store(b.add(pc, size), pcp)
    b.branch(stop)

    # stop: why the wave stopped, into the status list; then the next wave
    b.position_at_end(stop)
    why = b.phi(I32, "why")
    why.add_incoming(const(int(Status.UNBOUND), I32), fetch)
    why.add_incoming(unbound_or_reference, check_index)
    why.add_incoming(const(int(Status.BUDGET), I32), check_budget)
    why.add_incoming(const(int(Status.REFERENCE), I32), run)
    why.add_incoming(status, counted)
    why.add_incoming(const(int(Status.BARRIER), I32), barrier)
    b.store(why, element(b, statuses, k, I32))
    b.branch(next_wave)
    b.position_at_end(next_wave)
    k_next = b.add(k, const(1))
    k.add_incoming(k_next, next_wave)
    b.cbranch(b.icmp_signed("<", k_next, count), waves, done)
    b.position_at_end(done)
    for slot, pointer in local.items():
        set_word(b, d, slot, b.load(pointer, typ=I64))
    b.ret_void()
