"""How a command-processor thread shares the Python interpreter with the client it serves.

The client rings a doorbell and then spins on a signal in memory, in Python, holding the GIL. The
CP thread emulates in Python and numpy; numpy lets go of the GIL inside every operation over more
than a few hundred elements, the spinning client takes it at once, and the CP waits a whole switch
interval to get it back. A dispatch of many waves then spends most of its time waiting (measured:
a 2^16-element tinygrad dispatch, 47-51 ms of wall for 8 ms of the CP thread's CPU at the 0.5 ms
idle interval of the time). So while a dispatch that wide runs, the interval is cut shorter still,
and the one in force before comes back when the last such dispatch ends; small dispatches, whose
numpy operations keep the GIL, run at the idle interval.

Even so, a small dispatch paid for sharing twice: the CP waited up to an interval for the
interpreter after its doorbell moved, and while it ran its packets the client took back every other
slice (measured: 1 ms of CP work cost 2-3 ms of wall; on a loaded machine each hand-over of the GIL
also waits for the OS to run the other thread). Under the GIL the two run one after the other
anyway, so the fewer hand-overs the better. The doorbell watch, as soon as a doorbell moves and
before it asks for the GIL itself, marks the CP's turn under way and hands the main thread a pending
call (`Handoff`; the call is native code, emu/native/stand_aside.py, which says why it must run no
Python): unless the main thread stands in gpubench's own driver, emulator or debugger code (whose
locks the CP may need), it lets go of the interpreter until the CP's turn is over (its pass ends, or
it runs native code without the GIL, where both can run), at most YIELD_LIMIT_SECONDS; as a client
blocked in the kernel's wait ioctl would, and as a client spinning on a signal (tinygrad's
HCQSignal.wait) then does at no cost. The CP hands over the same call as each pass starts, for a
main thread that was in gpubench's code when the doorbell moved. Python 3.11 runs a pending call
from another thread only when the main thread next takes the GIL or is asked to drop it (a forced
switch later, when it spins or works in Python; signals tripped from another thread wait likewise
on Linux), so the idle interval is short, 64 µs: the CP waits that long for the GIL once, and the
main thread stands aside before it lets the CP have it (measured: doorbell to the CP's first packet
0.68 ms at 0.5 ms, 0.22-0.25 ms at 64 µs).
"""
from __future__ import annotations

import ctypes
import itertools
import sys
import threading
from contextlib import contextmanager

import numpy as np

from gpubench.emu.native import stand_aside

IDLE_SWITCH_SECONDS = 64e-6  # the CP gets the interpreter soon after a doorbell; exact in µs
WIDE_SWITCH_SECONDS = 0.00002
# numpy's ufunc loops release the GIL above this many elements (NPY_BEGIN_THREADS_THRESHOLDED)
NUMPY_RELEASES_GIL_ABOVE = 500

_lock = threading.Lock()
_wide_dispatches = 0  # running now, over every GPU's CP thread
_interval_outside = IDLE_SWITCH_SECONDS  # what the wide dispatches' interval replaced


def share_when_idle() -> None:
    """Called as a CP thread starts: never a longer interval than IDLE_SWITCH_SECONDS."""
    global _interval_outside
    with _lock:
        if _wide_dispatches:
            _interval_outside = min(_interval_outside, IDLE_SWITCH_SECONDS)
        else:
            sys.setswitchinterval(min(sys.getswitchinterval(), IDLE_SWITCH_SECONDS))


@contextmanager
def dispatch_running(lanes: int):
    """Around one dispatch of ``lanes`` lanes (waves x wave size)."""
    global _wide_dispatches, _interval_outside
    if lanes <= NUMPY_RELEASES_GIL_ABOVE:
        yield
        return
    running_without_the_gil()
    with _lock:
        _wide_dispatches += 1
        if _wide_dispatches == 1:
            _interval_outside = sys.getswitchinterval()
            sys.setswitchinterval(WIDE_SWITCH_SECONDS)
    try:
        yield
    finally:
        with _lock:
            _wide_dispatches -= 1
            if not _wide_dispatches:
                sys.setswitchinterval(_interval_outside)


YIELD_LIMIT_SECONDS = 0.05  # the longest the main thread stands aside for one turn
# code whose locks a CP thread may need: the main thread never stands aside inside it
SHARED_WITH_THE_CP = ("gpubench.drivers", "gpubench.emu", "gpubench.debug")
MAX_HANDOFFS = 1 << 12  # turn words: a Handoff's word outlives it, since a pending call may still name it
_turn_words = np.zeros(MAX_HANDOFFS, np.uint32)
_slots = itertools.count()
_current = threading.local()  # the Handoff of the CP thread running here, if any


def stand_aside_call() -> int:
    """The pending call's address (emu/native/stand_aside.py), compiled or loaded once."""
    return stand_aside.stand_aside_address(SHARED_WITH_THE_CP, YIELD_LIMIT_SECONDS)


class Handoff:
    """A command-processor thread's turns with the interpreter, which the main thread waits out."""

    def __init__(self):
        slot = next(_slots) % MAX_HANDOFFS
        self._word = _turn_words[slot:slot + 1]
        self.address = _turn_words.ctypes.data + 4 * slot  # the turn word: set while a turn is under way

    @contextmanager
    def turn(self):
        """Around a pass: the main thread stands aside the next time it takes the interpreter (for a
        main thread that was in gpubench's code when the doorbell moved, see the module)."""
        if threading.current_thread() is not threading.main_thread():  # the main thread waits for no one
            self._word[0] = 1
            _add_pending_call(stand_aside_call(), self.address)
        _current.handoff = self
        try:
            yield
        finally:
            _current.handoff = None
            self.turn_over()

    def turn_over(self) -> None:
        if self._word[0]:
            self._word[0] = 0
            stand_aside.wake(self.address)


def running_without_the_gil() -> None:
    """The CP thread is about to run native code without the GIL: a main thread standing aside for
    it may run meanwhile."""
    handoff = getattr(_current, "handoff", None)
    if handoff is not None:
        handoff.turn_over()


_add_pending_call = ctypes.pythonapi.Py_AddPendingCall
_add_pending_call.argtypes, _add_pending_call.restype = (ctypes.c_void_p, ctypes.c_void_p), ctypes.c_int
