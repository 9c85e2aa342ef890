"""How a command-processor thread shares the Python interpreter with the client it serves.

The client rings a doorbell and then spins on a signal in memory, in Python, holding the GIL. The
CP thread emulates in Python and numpy; numpy lets go of the GIL inside every operation over more
than a few hundred elements, the spinning client takes it at once, and the CP waits a whole switch
interval to get it back. A dispatch of many waves then spends most of its time waiting (measured:
a 2^16-element tinygrad dispatch, 47-51 ms of wall for 8 ms of the CP thread's CPU at the 0.5 ms
interval used when idle). So while a dispatch that wide runs, the interval is cut short, and the
one in force before comes back when the last such dispatch ends; small dispatches, whose numpy
operations keep the GIL, run at the idle interval, where forced switches cost least.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

IDLE_SWITCH_SECONDS = 0.0005  # the client gets the interpreter soon after a doorbell
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
