"""Watching doorbells without the GIL: ``i64 watch(ptr words, ptr seen, i64 count, i64 budget, i64 first,
i64 longest, i64 steady, ptr call, ptr turn)`` returns the index of the first of ``count`` 64-bit
words (their addresses in ``words``) whose value is no longer the one in ``seen``, or -1 once it has
napped ``budget`` ns without one moving. Naps (libc's nanosleep) are ``first`` ns long for the first
``steady`` ns, then double up to ``longest``. When a word moved and ``call`` is not null, the watch
sets the 32-bit word at ``turn`` (the command processor's turn is under way) and hands
``call(turn)`` to the interpreter's main thread (Py_AddPendingCall, which needs no GIL) before it
returns: how a client spinning on a signal learns, before the command processor asks for the GIL,
that it wants the interpreter (cp/interpreter.py).

A client rings a doorbell with a plain store into memory it mapped; nothing calls gpubench, so the
command processor must look. Looking from Python every 50 µs took the GIL from the client thousands of
times a second; this loop looks from native code called through ctypes, which lets the GIL go for the
call, so the command-processor thread takes it back only when a doorbell moved or its wait ran out.
Growing naps keep a long idle cheap (each wake-up costs the kernel a few µs of CPU) while a doorbell
rung soon after the last one (a client's next dispatch) is seen within tens of µs.
"""
from __future__ import annotations

import ctypes
import functools

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from gpubench.emu.hostmem import libc
from gpubench.emu.native import build
from gpubench.emu.native.build import I32, I64, PTR, Code, const, element

FIRST_NAP_NANOSECONDS = 20_000  # the kernel's timer slack (50 µs by default) lengthens each nap
LONGEST_NAP_NANOSECONDS = 500_000  # idle, each wake-up costs ~15 µs of CPU on a 2-core VM: ~2 % of a core
STEADY_NANOSECONDS = 5_000_000  # a client's dispatches in a row are well within this of each other
# bound to this process's libc and libpython in `_watch` (objects are cached on disk)
_NANOSLEEP, _ADD_PENDING_CALL = "gpubench_nanosleep", "gpubench_add_pending_call"
_CODE = Code("doorbell watch v5", lambda module, name: _define(module, name))


def _define(module: ir.Module, name: str) -> None:
    nanosleep = ir.Function(module, ir.FunctionType(I32, [PTR, PTR]), _NANOSLEEP)
    add_pending_call = ir.Function(module, ir.FunctionType(I32, [PTR, PTR]), _ADD_PENDING_CALL)
    fn = ir.Function(module, ir.FunctionType(I64, [PTR, PTR, I64, I64, I64, I64, I64, PTR, PTR]), name)
    words, seen, count, budget, first, longest, steady, call, turn = fn.args
    entry, nap_loop, scan, compare, moved, hand_over, found, rest, sleep, out = (
        fn.append_basic_block(n)
        for n in ("entry", "nap_loop", "scan", "compare", "moved", "hand_over", "found", "rest", "sleep", "out"))
    b = ir.IRBuilder(entry)
    request = b.bitcast(b.alloca(I64, size=2), PTR)  # struct timespec {tv_sec; tv_nsec}
    b.branch(nap_loop)

    b.position_at_end(nap_loop)
    napped, nap = b.phi(I64, "napped"), b.phi(I64, "nap")
    napped.add_incoming(const(0), entry)
    nap.add_incoming(first, entry)
    b.branch(scan)

    b.position_at_end(scan)
    i = b.phi(I64, "i")
    i.add_incoming(const(0), nap_loop)
    b.cbranch(b.icmp_signed("<", i, count), compare, rest)

    b.position_at_end(compare)
    address = b.inttoptr(b.load(element(b, words, i, I64), typ=I64), PTR)
    value = b.load_atomic(address, "monotonic", 8, typ=I64)  # the client's store, never a value hoisted out
    i.add_incoming(b.add(i, const(1)), compare)
    b.cbranch(b.icmp_unsigned("!=", value, b.load(element(b, seen, i, I64), typ=I64)), moved, scan)

    b.position_at_end(moved)
    b.cbranch(b.icmp_unsigned("!=", b.ptrtoint(call, I64), const(0)), hand_over, found)
    b.position_at_end(hand_over)
    b.atomic_rmw("xchg", turn, const(1, I32), "release")  # the turn is under way
    b.call(add_pending_call, [call, turn])  # a full queue (-1) only loses the head start
    b.branch(found)
    b.position_at_end(found)
    b.ret(i)

    b.position_at_end(rest)
    b.cbranch(b.icmp_signed(">=", napped, budget), out, sleep)
    b.position_at_end(out)
    b.ret(const(-1))

    b.position_at_end(sleep)
    b.store(const(0), element(b, request, const(0), I64))
    b.store(nap, element(b, request, const(1), I64))
    b.call(nanosleep, [request, ir.Constant(PTR, None)])
    now_napped = b.add(napped, nap)
    napped.add_incoming(now_napped, sleep)
    doubled = b.shl(nap, const(1))
    grown = b.select(b.icmp_signed("<", doubled, longest), doubled, longest)
    nap.add_incoming(b.select(b.icmp_signed("<", now_napped, steady), nap, grown), sleep)
    b.branch(nap_loop)


@functools.cache
def _watch():
    llvm.add_symbol(_NANOSLEEP, ctypes.cast(libc.nanosleep, ctypes.c_void_p).value)
    llvm.add_symbol(_ADD_PENDING_CALL, ctypes.cast(ctypes.pythonapi.Py_AddPendingCall, ctypes.c_void_p).value)
    address = build.addresses([_CODE])[_CODE.key]
    return ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, *[ctypes.c_int64] * 5,
                            ctypes.c_void_p, ctypes.c_void_p)(address)


class DoorbellWatch:
    """The 64-bit words a command processor wakes on, and the values it last acted on."""

    def __init__(self, words: list[tuple[np.ndarray, int]]):
        self._arrays = words  # (array, index): the arrays stay alive while their addresses are watched
        self.addresses = np.array([a.ctypes.data + i * a.strides[0] for a, i in words], np.uint64)
        self.seen = np.zeros(len(words), np.uint64)

    def look(self) -> None:
        """Take the words' values now: `wait` returns when one differs from them."""
        for k, (array, index) in enumerate(self._arrays):
            self.seen[k] = array[index]

    def wait(self, seconds: float, call: int | None = None, turn: int | None = None) -> bool:
        """Until a word moved (True) or about ``seconds`` passed (False), without holding the GIL;
        ``call``: a pending-call function's address, given ``turn`` (the address of the turn word it
        sets first) when a word moved."""
        return _watch()(self.addresses.ctypes.data, self.seen.ctypes.data, len(self.seen), int(seconds * 1e9),
                        FIRST_NAP_NANOSECONDS, LONGEST_NAP_NANOSECONDS, STEADY_NANOSECONDS, call, turn) >= 0
