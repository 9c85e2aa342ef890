"""Running a dispatch on the native engine.

A `NativeProgram` is the code around a dispatch's entry point bound to records: a table with one entry
per code dword (a record index, unbound, or "the reference engine runs this"), and per record the
handler's address, the instruction's size and its operand words. It is bound once per code content and
reused by every dispatch of it in the process (checked against a copy of the code bytes, so code
written again at the same address is bound again), and kept on disk for later processes (saved.py). Binding decodes forward from the entry point and
compiles every new handler variant in one batch; PCs the loop finds unbound later are bound then.

Scheduling: every running wave runs natively, in wave order, until it ends, reaches a barrier, an
instruction for the reference engine, an unbound PC or the call's budget. Then the waves stopped
at reference instructions run those through the reference engine (`Runner.execute`), the waves at
the lowest PC first, all waves at one PC together; barriers are released when no wave can run. The
order is a function of the program and its inputs only, so runs are deterministic; waves of a
workgroup interleave at barriers and reference instructions, not instruction by instruction as in
the reference engine (results differ only for programs whose waves race on memory).

A wave schedule (schedule.py: `gpubench run --schedule`, GPUBENCH_SCHEDULE, the API's ``schedule=``)
and the race detector run a dispatch on the reference engine instead (launch.run): this loop runs a
wave to its next barrier, the order of no schedule but per-wave, and its memory accesses are not
seen by Python.

Native code of a dispatch over more than a few hundred lanes runs without the GIL, so the client's
Python threads run meanwhile; a smaller one keeps it (it is over before a thread switch would pay).
"""
from __future__ import annotations

import ctypes
import time

import numpy as np

from gpubench.emu import executor
from gpubench.emu.context import Context
from gpubench.emu.cp import interpreter
from gpubench.emu.memory import AddressSpace
from gpubench.emu.native import alu, bitop3, build, crosslane, memory, packed_move, saved, vopd
from gpubench.emu.native.layout import (MAP_WORDS, RECORD_FN, RECORD_OPERANDS, RECORD_SIZE, RECORD_WORDS, Binding,
                                        Dispatch, Status)
from gpubench.emu.native.lds import bind_lds
from gpubench.emu.native.loop import loop_code
from gpubench.emu.native.matrix import bind_matrix
from gpubench.emu.ops import alu as reference_alu
from gpubench.emu.ops import bitop3 as reference_bitop3
from gpubench.emu.ops import control, gpr_index, memory_ops, valu
from gpubench.emu.ops import crosslane as reference_crosslane
from gpubench.emu.ops import lds as reference_lds
from gpubench.emu.ops import matrix as reference_matrix
from gpubench.emu.ops import packed_move as reference_packed_move
from gpubench.emu.ops import vopd as reference_vopd
from gpubench.emu.waves import WaveState

# Which native binder takes the instructions each reference handler factory claims.
BINDERS = {reference_alu.vector_alu: alu.bind_valu, reference_alu.scalar_alu: alu.bind_salu,
           control.control: alu.bind_control, memory_ops.scalar_load: memory.bind_scalar_load,
           reference_lds.data_share: bind_lds,
           memory_ops.vector_load_store: memory.bind_global, reference_vopd.dual_issue: vopd.bind_dual,
           reference_matrix.matrix: bind_matrix, reference_crosslane.crosslane: crosslane.bind_crosslane,
           reference_bitop3.bitop3: bitop3.bind_bitop3, reference_packed_move.packed_move: packed_move.bind_packed_move}
WINDOW_BYTES = 4 << 20  # the code a program's table covers, at most (around the entry point)
PREBIND_INSTRUCTIONS = 4096  # decoded forward from the entry point when a program is first bound
SLICE = 1 << 22  # wave-instructions per native call: the watchdog's clock is read between calls
MAX_PROGRAMS = 4096
MAX_BINDINGS = 1 << 17
_programs: dict[tuple, NativeProgram] = {}
_bindings: dict[tuple, alu.Bound | None] = {}  # by (target, wave size, VGPRs, instruction bytes)
_loops: dict[tuple[int, bool], object] = {}
RUNNING, BARRIER, DONE, END = int(WaveState.RUNNING), int(WaveState.BARRIER), int(WaveState.DONE), int(Status.END)


def usable(ctx: Context) -> bool:
    """Whether the native engine can run this Context: an AddressSpace of its own class that no tool
    watches."""
    return type(ctx.memory) is AddressSpace and not watched(ctx.memory)


def watched(memory_: AddressSpace) -> bool:
    """Whether a tool sees the accesses to ``memory_`` through Python (a recorder, AddressSpace.watch)."""
    return "read" in memory_.__dict__


class NativeProgram:
    def __init__(self, ctx: Context, base: int, code: np.ndarray):
        self.target, self.wave_size, self.vgprs = ctx.isa.target.name, ctx.waves.wave_size, ctx.waves.vgpr.shape[1]
        self.base, self.code = base, code.tobytes()  # what for_dispatch compares the code in memory with
        self.table = np.full(len(code) // 4, int(Binding.UNBOUND), np.int32)  # written in place, never replaced
        self.table_address = address(self.table)
        self.records = np.zeros((0, RECORD_WORDS), np.int64)
        self.names: list[tuple[str, ...]] = []  # per record: the instruction names (VOPD: both halves)
        self.keys: list[str] = []  # per record: its handler's code key (saved.py)
        self.bound = 0  # instructions bound natively (the rest run on the reference engine)
        self.uses_trap_status = False  # a handler reads or writes the trap status (gfx12's min/max)
        self.generation = np.zeros(1, np.int64)  # counts replacements of `records` (a plan checks it natively)
        self._reached_names: dict[bytes, frozenset[str]] = {}  # by the records a dispatch reached

    def reached_names(self, reached: np.ndarray) -> frozenset[str]:
        """The names of the instructions of the records ``reached`` marks (dispatches of one program
        mostly reach the same ones: worked out once per set)."""
        key = reached.tobytes()
        names = self._reached_names.get(key)
        if names is None:
            names = self._reached_names[key] = frozenset(
                name for index in np.flatnonzero(reached).tolist() for name in self.names[index])
        return names

    @classmethod
    def for_dispatch(cls, ctx: Context, entry: int) -> NativeProgram | None:
        mapping = ctx.memory.find(entry)
        if mapping is None:
            return None
        start = max(mapping.base, entry - WINDOW_BYTES // 2) & ~3
        end = min(mapping.end, start + WINDOW_BYTES)
        code = mapping.data[start - mapping.base:end - mapping.base]
        key = (ctx.isa.target.name, ctx.waves.wave_size, ctx.waves.vgpr.shape[1], start, end)
        program = _programs.get(key)
        if program is None or program.code != code.tobytes():  # a copy and a memcmp: cheaper than numpy's
            if len(_programs) >= MAX_PROGRAMS:
                _programs.clear()
            program = _programs[key] = cls(ctx, start, code)
            saved.load(program)
        return program

    def covers(self, pc: int) -> bool:
        return 0 <= pc - self.base < 4 * len(self.table) and pc % 4 == 0

    def _bound(self, ctx: Context, reference: executor.Program, inst) -> alu.Bound | None:
        """``inst`` bound by its binder; the same bytes in another program reuse the binding."""
        key = (self.target, self.wave_size, self.vgprs, inst.bytes)
        if key not in _bindings:
            binder = BINDERS.get(reference.factory(inst))
            if len(_bindings) >= MAX_BINDINGS:
                _bindings.clear()
            _bindings[key] = binder(inst, ctx) if binder else None
        return _bindings[key]

    def bind(self, ctx: Context, reference: executor.Program, pcs: list[int], forward: bool = False) -> None:
        """Bind the instructions at ``pcs`` (with ``forward``: and those after each, up to an
        undecodable word or PREBIND_INSTRUCTIONS), compiling new handlers in one batch."""
        found: list[tuple[int, object, alu.Bound | None]] = []
        for start in pcs:
            pc, count = start, 0
            while self.covers(pc) and self.table[(pc - self.base) // 4] == Binding.UNBOUND and \
                    count < (PREBIND_INSTRUCTIONS if forward else 1):
                try:
                    inst, _ = reference.lookup(pc)
                except Exception:  # noqa: BLE001 - the reference engine reports it if a wave gets there
                    if pc == start:
                        self.table[(pc - self.base) // 4] = Binding.REFERENCE
                    break
                found.append((pc, inst, self._bound(ctx, reference, inst)))
                if inst.name == "S_CODE_END":
                    break
                pc, count = pc + inst.size, count + 1
        compiled = build.addresses([b.code for _, _, b in found if b is not None])
        rows = []
        for pc, inst, bound in found:
            address = compiled.get(bound.code.key) if bound is not None else None
            if not isinstance(address, int):
                self.table[(pc - self.base) // 4] = Binding.REFERENCE
                continue
            row = [0] * RECORD_WORDS
            row[RECORD_FN], row[RECORD_SIZE] = address, inst.size
            row[RECORD_OPERANDS:RECORD_OPERANDS + len(bound.operands)] = bound.operands
            self.table[(pc - self.base) // 4] = len(self.names)
            rows.append(row)
            self.names.append(tuple(i.name for i in (inst.idef, inst.idef_y) if i))
            self.keys.append(bound.code.key)
            self.uses_trap_status |= alu.uses_trap_status(bound.code.key)
        if rows:  # operand words are unsigned 64-bit: the records hold their bits
            self.records = np.concatenate([self.records, np.array(rows, np.uint64).view(np.int64)])
            self.generation[0] += 1
            self.bound += len(rows)
        if found:
            saved.save(self)


class _MapTable:
    """The AddressSpace's mappings as the native code reads them, rebuilt when they change (a client
    maps and unmaps between most dispatches: each mapping's host address is looked up once)."""

    def __init__(self) -> None:
        self.memory, self.generation, self.array = None, -1, np.zeros((0, MAP_WORDS), np.int64)
        self._addresses: dict[int, tuple[np.ndarray, int]] = {}  # id(mapping.data) -> (data, address)

    def of(self, memory_: AddressSpace) -> np.ndarray:
        if memory_ is not self.memory or memory_.generation != self.generation:
            known, addresses, rows = self._addresses if memory_ is self.memory else {}, {}, []
            for m in memory_.mappings:
                entry = known.get(id(m.data))
                if entry is None or entry[0] is not m.data:
                    entry = (m.data, address(m.data))
                addresses[id(m.data)] = entry
                rows.append((m.base, m.end, entry[1], m.writable))
            self.array = np.array(rows, np.int64).reshape(-1, MAP_WORDS)
            self.memory, self.generation, self._addresses = memory_, memory_.generation, addresses
        return self.array


_maps = _MapTable()


def address(array: np.ndarray) -> int:
    """Where a C-contiguous array's data starts: through a ctypes view of a writable buffer, a quarter
    of what `.ctypes.data` costs (a dispatch sets a dozen of them)."""
    if array.nbytes and array.flags.writeable:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    return array.ctypes.data


def _loop(wave_size: int, release_gil: bool):
    """The loop as a ctypes function: one that lets go of the GIL while it runs, or one that keeps it
    (a small dispatch is over in microseconds; giving the GIL to a client spinning on a signal would
    cost a whole switch interval to get it back, see emu/cp/interpreter.py)."""
    key = (wave_size, release_gil)
    fn = _loops.get(key)
    if fn is None:
        address = build.addresses([loop_code(wave_size)])[loop_code(wave_size).key]
        kind = ctypes.CFUNCTYPE if release_gil else ctypes.PYFUNCTYPE
        fn = _loops[key] = kind(None, ctypes.c_void_p)(address)
    return fn


def dispatch_block(ctx: Context, program: NativeProgram, maps: np.ndarray) -> np.ndarray:
    """The dispatch block of ``ctx``'s waves running ``program``: everything but the per-call slots
    (records, reached, wave and status lists, budget, counters)."""
    w = ctx.waves
    block = np.zeros(int(Dispatch.SLOTS), np.int64)
    fixed = {Dispatch.SGPR: w.sgpr, Dispatch.VGPR: w.vgpr, Dispatch.PC: w.pc, Dispatch.SCC: w.scc,
             Dispatch.MODE: w.mode, Dispatch.EXECUTED: w.executed, Dispatch.MAPS: maps,
             Dispatch.LDS: ctx.lds, Dispatch.WORKGROUP: w.workgroup}
    for slot, array in fixed.items():
        if not array.flags.c_contiguous:  # native code indexes it as one dense block
            raise ValueError(f"the native engine needs C-contiguous wave arrays (dispatch slot {slot})")
        block[slot] = address(array)
    block[Dispatch.VGPR_STRIDE] = w.vgpr.strides[0]
    block[Dispatch.CODE_BASE], block[Dispatch.TABLE_LENGTH] = program.base, len(program.table)
    block[Dispatch.TABLE] = program.table_address
    block[Dispatch.MAP_COUNT] = len(maps)
    block[Dispatch.LDS_BYTES] = ctx.lds.shape[1]
    return block


def loop_address(wave_size: int) -> int:
    code = loop_code(wave_size)
    return build.addresses([code])[code.key]


def maps_of(memory_: AddressSpace) -> np.ndarray:
    """The map table of ``memory_`` as native code reads it (kept until its mappings change)."""
    return _maps.of(memory_)


def run(ctx: Context, watchdog: executor.Watchdog, entry: int | None = None) -> None:
    """Run every wave of ``ctx`` to its end, natively where the program is bound (see the module);
    ``entry``: the dispatch's entry point, when the waves have left it (a dispatch run on from a plan)."""
    w = ctx.waves
    runners: list[executor.Runner] = []

    def runner() -> executor.Runner:
        """The reference engine's runner, made when a wave first needs it (most small dispatches never do)."""
        if not runners:
            runners.append(executor.Runner(ctx, watchdog))
        return runners[0]

    if w.count == 0:
        return
    entry = int(w.pc[0]) if entry is None else entry
    program = NativeProgram.for_dispatch(ctx, entry)
    if program is None:
        runner().run()
        return
    if program.bound == 0 and program.covers(entry):
        program.bind(ctx, runner().program, [entry], forward=True)
    loop = _loop(w.wave_size, w.count * w.wave_size > interpreter.NUMPY_RELEASES_GIL_ABOVE)
    maps = _maps.of(ctx.memory)
    block = dispatch_block(ctx, program, maps)
    reached = np.zeros(len(program.records), np.uint8)
    stats = ctx.stats
    left = stats.setdefault("by_reference", {})
    referenced = False  # only the reference engine's instructions set VGPR index mode
    while True:
        running = np.nonzero(w.state == RUNNING)[0]
        if not running.size:
            if not (w.state == BARRIER).any():
                break
            runner().release_barriers()
            continue
        indexed = running[(w.mode[running] & gpr_index.GPR_IDX_EN) != 0] if referenced else ()
        if len(indexed):  # VGPR index mode (ops/gpr_index.py): the reference engine runs them until it ends
            pc = int(w.pc[indexed].min())
            name = runner().execute(pc, indexed[w.pc[indexed] == pc]).name
            left[name] = left.get(name, 0) + 1
            continue
        if len(reached) < len(program.records):
            reached = np.concatenate([reached, np.zeros(len(program.records) - len(reached), np.uint8)])
        statuses = np.zeros(len(running), np.int32)
        remaining = watchdog.max_wave_instructions - stats["wave_instructions"]
        block[Dispatch.RECORDS], block[Dispatch.REACHED] = address(program.records), address(reached)
        block[Dispatch.WAVE_LIST], block[Dispatch.WAVE_COUNT] = address(running), len(running)
        block[Dispatch.STATUS_LIST] = address(statuses)
        block[Dispatch.BUDGET] = min(SLICE, remaining + 1)
        block[Dispatch.WAVE_INSTRUCTIONS] = block[Dispatch.LANE_OPERATIONS] = 0
        if program.uses_trap_status and not block[Dispatch.TRAP_STATUS]:
            block[Dispatch.TRAP_STATUS] = address(valu.trap_status(ctx))
        loop(address(block))
        native = int(block[Dispatch.WAVE_INSTRUCTIONS])
        stats["wave_instructions"] += native
        stats["steps"] += native
        stats["lane_operations"] += int(block[Dispatch.LANE_OPERATIONS])
        if stats["wave_instructions"] > watchdog.max_wave_instructions or \
                time.perf_counter() - ctx.started > watchdog.max_seconds:
            raise executor.WatchdogTimeout(executor.hang_report(ctx, runner().program, watchdog))
        ended = statuses == END
        if ended.all():  # the common case: every wave ran to s_endpgm
            w.state[running] = DONE
            if len(running) == w.count:
                break
            continue
        w.state[running[ended]] = WaveState.DONE
        w.state[running[statuses == Status.BARRIER]] = WaveState.BARRIER
        unbound = running[statuses == Status.UNBOUND]
        if len(unbound):
            pcs = np.unique(w.pc[unbound]).tolist()
            bindable = [pc for pc in pcs if program.covers(pc)]
            if bindable:
                program.bind(ctx, runner().program, bindable, forward=True)
            outside = [pc for pc in pcs if not program.covers(pc)]
            unbound = unbound[np.isin(w.pc[unbound], outside)]  # the rest run natively next round
        by_reference = np.sort(np.concatenate([running[statuses == Status.REFERENCE], unbound]))
        at = w.pc[by_reference]
        for pc in np.unique(at).tolist():  # lowest PC first; each group one instruction
            group = by_reference[at == pc]
            referenced = True
            name = runner().execute(pc, group).name
            left[name] = left.get(name, 0) + len(group)
    stats.setdefault("executed", set()).update(program.reached_names(reached))
