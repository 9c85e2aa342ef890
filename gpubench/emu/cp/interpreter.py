"""How a command-processor thread shares the Python interpreter with the client it serves.

The client rings a doorbell and then spins on a signal in memory, in Python, holding the GIL. The
CP thread emulates in Python and numpy; numpy lets go of the GIL inside every operation over more
than a few hundred elements, the spinning client takes it at once, and the CP waits a whole switch
interval to get it back. A dispatch of many waves then spends most of its time waiting (measured:
a 2^16-element tinygrad dispatch, 47-51 ms of wall for 8 ms of the CP thread's CPU at the 0.5 ms
interval used when idle). So while a dispatch that wide runs, the interval is cut short, and the
one in force before comes back when the last such dispatch ends; small dispatches, whose numpy
operations keep the GIL, run at the idle interval, where forced switches cost least.

Even so, a small dispatch paid for the spinning twice: the CP waited up to an interval for the
interpreter after its doorbell moved, and while it ran its packets the client took back every other
slice to look at its signal (measured: 1 ms of CP work cost 2-3 ms of wall). So the doorbell watch,
as soon as a doorbell moves and before it asks for the GIL itself, hands the main thread a pending
call (`Handoff`): if the main thread is spinning in a loop the client driver's seam named
(`spin_wait`, e.g. tinygrad's HCQSignal.wait) and nothing of gpubench's is between that loop and
where it stands, it lets go of the interpreter until the CP's pass is over, as a client blocked in
the kernel's wait ioctl would. Anywhere else the call returns at once and nothing changes. The CP
hands over the same call as each pass starts, for a client that began to spin only after the
doorbell moved: it stands aside the first time it gets the interpreter back. That is also why the
idle interval is short (64 µs; it was 0.5 ms): the CP gets the interpreter that soon after a
doorbell even from a client still finishing its launch (measured: doorbell to the CP's first
packet 0.67 ms at 0.5 ms, 0.22 ms at 50 µs), and a spinning client no longer takes slices back.
"""
from __future__ import annotations

import ctypes
import itertools
import sys
import threading
import weakref
from contextlib import contextmanager
from types import CodeType

IDLE_SWITCH_SECONDS = 64e-6  # the CP gets the interpreter soon after a doorbell (see Handoff); exact in µs
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


YIELD_LIMIT_SECONDS = 0.05  # the longest a spinning client stands aside for one pass
_FRAMES_TO_SPIN_LOOP = 12  # how far up from where the main thread stands its spin loop may be
_spin_waits: set[CodeType] = set()
_handoffs: "weakref.WeakValueDictionary[int, Handoff]" = weakref.WeakValueDictionary()
_keys = itertools.count(1)
_GENERATION = 0xFFFFFFFF


def spin_wait(code: CodeType) -> None:
    """Name a client's loop that spins on GPU memory (a function's code object)."""
    _spin_waits.add(code)


class Handoff:
    """A command-processor thread's passes over its queues, which a spinning client waits out."""

    def __init__(self):
        self._done = threading.Condition()
        self.passes = 0
        self.key = next(_keys)
        _handoffs[self.key] = self

    def argument(self) -> int:
        """The pending call's argument until the next pass ends (key, passes so far)."""
        return (self.key << 32) | (self.passes & _GENERATION)

    def claim(self) -> None:
        """As a pass starts: a client that was not spinning yet when the doorbell moved (the watch's
        call came too early) stands aside the next time it takes the interpreter back."""
        _add_pending_call(STAND_ASIDE_CALL, self.argument())

    def pass_done(self) -> None:
        with self._done:
            self.passes += 1
            self._done.notify_all()

    def wait_out(self, generation: int) -> None:
        with self._done:
            self._done.wait_for(lambda: self.passes & _GENERATION != generation, YIELD_LIMIT_SECONDS)


def _spinning(frame) -> bool:
    """Whether ``frame`` (the main thread's) stands in a spin loop, with no gpubench code between."""
    for _ in range(_FRAMES_TO_SPIN_LOOP):
        if frame is None or frame.f_globals.get("__name__", "").startswith("gpubench"):
            return False
        if frame.f_code in _spin_waits:
            return True
        frame = frame.f_back
    return False


@ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
def _stand_aside(argument: int | None) -> int:
    """The pending call (see the module): runs in the main thread, between two of its bytecodes."""
    handoff = _handoffs.get((argument or 0) >> 32)
    if handoff is not None and _spinning(sys._getframe(1)):
        handoff.wait_out((argument or 0) & _GENERATION)
    return 0


STAND_ASIDE_CALL = ctypes.cast(_stand_aside, ctypes.c_void_p).value
_add_pending_call = ctypes.pythonapi.Py_AddPendingCall
_add_pending_call.argtypes, _add_pending_call.restype = (ctypes.c_void_p, ctypes.c_void_p), ctypes.c_int
