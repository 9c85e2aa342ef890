"""The pending call with which the client's main thread stands aside for a command processor's turn
(cp/interpreter.py says why), in native code: ``i32 stand_aside(ptr turn)``.

It runs no Python code. CPython runs a pending call between two bytecodes; a pending call written in
Python runs bytecode while the interpreter is still handling pending calls, and a turn that begins
meanwhile (a new pending call) then leaves the eval breaker set until that handling ends. Under a
trace or profile function (pdb, coverage, cProfile) CPython 3.11 re-runs the instruction that found
the breaker set, so the call's first instruction ran forever and the client hung.

``turn`` points at a 32-bit futex word the command processor sets while its turn is under way. If it
is set and no frame of the main thread's stack belongs to gpubench's own code that a command
processor may wait for (`MODULES`: the main thread may hold its locks), the call lets go of the
GIL, sleeps on the futex until the turn ends or ``limit`` ns pass, and takes the GIL back.
"""
from __future__ import annotations

import ctypes
import functools
import platform

import llvmlite.binding as llvm
from llvmlite import ir

from gpubench.emu.hostmem import libc
from gpubench.emu.native import build
from gpubench.emu.native.build import I32, I64, PTR, Code, const, element

FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE = 128, 129
SYS_FUTEX = {"x86_64": 202, "aarch64": 98}  # the futex system call's number per host architecture
_HOST_FUTEX = ctypes.c_long(SYS_FUTEX.get(platform.machine(), -1))  # wake's arguments, made once
_WAKE, _EVERY_WAITER = ctypes.c_int(FUTEX_WAKE_PRIVATE), ctypes.c_int(2**31 - 1)
CLOCK_MONOTONIC = 1
# bound to this process's libc and libpython in `stand_aside_address` (objects are cached on disk)
_LIBC = {"syscall": (I64, [I64, PTR, I32, I32, PTR]), "clock_gettime": (I32, [I32, PTR]),
         "strncmp": (I32, [PTR, PTR, I64])}
_PYTHON = {"PyEval_GetFrame": (PTR, []), "PyFrame_GetGlobals": (PTR, [PTR]), "PyFrame_GetBack": (PTR, [PTR]),
           "PyDict_GetItemString": (PTR, [PTR, PTR]), "PyUnicode_AsUTF8": (PTR, [PTR]), "PyErr_Clear": (None, []),
           "Py_IncRef": (None, [PTR]), "Py_DecRef": (None, [PTR]), "PyEval_SaveThread": (PTR, []),
           "PyEval_RestoreThread": (None, [PTR])}
SYMBOL_PREFIX = "gpubench_"  # the functions' names in the IR, bound to this process's libc and libpython


def _declare(module: ir.Module) -> dict[str, ir.Function]:
    return {name: ir.Function(module, ir.FunctionType(result or ir.VoidType(), arguments), SYMBOL_PREFIX + name)
            for name, (result, arguments) in (_LIBC | _PYTHON).items()}


def _string(module: ir.Module, b: ir.IRBuilder, name: str, text: str) -> ir.Value:
    data = bytearray(text.encode() + b"\0")
    variable = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name)
    variable.global_constant, variable.linkage = True, "private"
    variable.initializer = ir.Constant(variable.value_type, data)
    return b.bitcast(variable, PTR)


def _define(module: ir.Module, name: str, modules: tuple[str, ...], limit_ns: int, sys_futex: int) -> None:
    c = _declare(module)
    fn = ir.Function(module, ir.FunctionType(I32, [PTR]), name)
    turn = fn.args[0]
    entry, walk_from, walk, look, ours, up, aside, sleep, back, out = (
        fn.append_basic_block(n)
        for n in ("entry", "walk_from", "walk", "look", "ours", "up", "aside", "sleep", "back", "out"))
    b = ir.IRBuilder(entry)
    timespec = b.bitcast(b.alloca(I64, size=2), PTR)  # struct timespec {tv_sec; tv_nsec}
    text = b.alloca(PTR)  # the module name of the frame the walk looks at
    dunder_name = _string(module, b, "dunder_name", "__name__")
    prefixes = [(_string(module, b, f"module_{k}", prefix), len(prefix)) for k, prefix in enumerate(modules)]

    def under_way() -> ir.Value:
        return b.icmp_unsigned("!=", b.load_atomic(turn, "acquire", 4, typ=I32), const(0, I32))

    def now() -> ir.Value:
        b.call(c["clock_gettime"], [const(CLOCK_MONOTONIC, I32), timespec])
        seconds = b.load(element(b, timespec, const(0), I64), typ=I64)
        return b.add(b.mul(seconds, const(1_000_000_000)), b.load(element(b, timespec, const(1), I64), typ=I64))

    null = ir.Constant(PTR, None)
    b.cbranch(under_way(), walk_from, out)

    b.position_at_end(walk_from)
    first = b.call(c["PyEval_GetFrame"], [])  # borrowed: the walk holds a reference to each frame it looks at
    with b.if_then(b.icmp_unsigned("!=", first, null)):
        b.call(c["Py_IncRef"], [first])
    start = b.block
    b.branch(walk)

    b.position_at_end(walk)  # the main thread's frames, innermost first
    frame = b.phi(PTR, "frame")
    frame.add_incoming(first, start)
    b.cbranch(b.icmp_unsigned("==", frame, null), aside, look)

    b.position_at_end(look)
    globals_ = b.call(c["PyFrame_GetGlobals"], [frame])
    module_name = b.call(c["PyDict_GetItemString"], [globals_, dunder_name])
    b.store(null, text)
    with b.if_then(b.icmp_unsigned("!=", module_name, null)):
        utf8 = b.call(c["PyUnicode_AsUTF8"], [module_name])
        b.store(utf8, text)
        with b.if_then(b.icmp_unsigned("==", utf8, null)):
            b.call(c["PyErr_Clear"], [])  # a __name__ that is not a str: not one of ours
    b.call(c["Py_DecRef"], [globals_])
    name_text, matched = b.load(text, typ=PTR), ir.Constant(ir.IntType(1), 0)
    has_name = b.icmp_unsigned("!=", name_text, null)
    for prefix, length in prefixes:  # a frame without a name compares a prefix with itself, and is not ours
        same = b.call(c["strncmp"], [b.select(has_name, name_text, prefix), prefix, const(length)])
        matched = b.or_(matched, b.and_(has_name, b.icmp_signed("==", same, const(0, I32))))
    b.cbranch(matched, ours, up)

    b.position_at_end(ours)
    b.call(c["Py_DecRef"], [frame])
    b.branch(out)

    b.position_at_end(up)
    caller = b.call(c["PyFrame_GetBack"], [frame])  # a new reference, or null at the bottom
    b.call(c["Py_DecRef"], [frame])
    frame.add_incoming(caller, up)
    b.branch(walk)

    b.position_at_end(aside)
    state = b.call(c["PyEval_SaveThread"], [])
    deadline = b.add(now(), const(limit_ns))
    b.branch(sleep)

    b.position_at_end(sleep)
    left = b.sub(deadline, now())
    waiting = b.and_(under_way(), b.icmp_signed(">", left, const(0)))
    with b.if_then(waiting):
        b.store(const(0), element(b, timespec, const(0), I64))
        b.store(left, element(b, timespec, const(1), I64))  # at most the limit: well below a second
        b.call(c["syscall"], [const(sys_futex), turn, const(FUTEX_WAIT_PRIVATE, I32), const(1, I32), timespec])
    b.cbranch(waiting, sleep, back)

    b.position_at_end(back)
    b.call(c["PyEval_RestoreThread"], [state])
    b.branch(out)

    b.position_at_end(out)
    b.ret(const(0, I32))


def _bind_symbols() -> None:
    for table, library in ((_LIBC, libc), (_PYTHON, ctypes.pythonapi)):
        for name in table:
            llvm.add_symbol(SYMBOL_PREFIX + name, ctypes.cast(getattr(library, name), ctypes.c_void_p).value)


@functools.cache
def stand_aside_address(modules: tuple[str, ...], limit_seconds: float) -> int:
    """The pending call's address: it stands aside outside the modules whose names start with one of
    ``modules``, for at most ``limit_seconds`` a turn."""
    _bind_symbols()
    limit_ns, sys_futex = int(limit_seconds * 1e9), SYS_FUTEX[platform.machine()]  # KeyError: no futex number known
    code = Code(f"stand aside v1 modules={','.join(modules)} limit={limit_ns} futex={sys_futex}",
                lambda module, name: _define(module, name, modules, limit_ns, sys_futex))
    return build.addresses([code])[code.key]


def wake(turn_address: int) -> None:
    """Wake a main thread sleeping on the turn word at ``turn_address`` (the turn is over)."""
    libc.syscall(_HOST_FUTEX, ctypes.c_void_p(turn_address), _WAKE, _EVERY_WAITER, None)
