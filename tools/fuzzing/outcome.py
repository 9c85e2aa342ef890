"""What a fuzzing case can end in, from best to worst.

RAN and DOCUMENTED are what a user may see: the input was accepted and ran, or it was refused the
way the hardware or driver refuses it (a page fault, an illegal instruction, an errno, a queue
error). The other classes are bugs: an exception no documentation names, the worker process dying
(a host crash), the command processor no longer running queues afterwards, or no answer in time.
"""
from __future__ import annotations

import enum
import errno
import traceback
from dataclasses import dataclass


class Kind(enum.Enum):
    RAN = "ran"
    DOCUMENTED = "documented outcome"
    UNDOCUMENTED = "undocumented exception"
    CRASH = "host crash"
    DEAD_CP = "dead command processor"
    HANG = "hang"


BUGS = (Kind.UNDOCUMENTED, Kind.CRASH, Kind.DEAD_CP, Kind.HANG)
KINDS_OF_STOP = ("illegal instruction", "cannot execute", "watchdog")  # how an ExecutionError's message starts


@dataclass(frozen=True)
class Outcome:
    kind: Kind
    label: str  # RAN: what ran; DOCUMENTED: the error's name (GPUPageFault, EINVAL ...); else the failure
    detail: str = ""  # for bugs: the traceback's last lines, the signal, what the CP did


def ran(label: str = "ran") -> Outcome:
    return Outcome(Kind.RAN, label)


def documented(label: str) -> Outcome:
    return Outcome(Kind.DOCUMENTED, label)


def undocumented(error: BaseException) -> Outcome:
    lines = traceback.format_exception(error)
    return Outcome(Kind.UNDOCUMENTED, type(error).__name__, "".join(lines[-6:]).strip())


def classify(error: BaseException, documented_errors: tuple[type[BaseException], ...]) -> Outcome:
    """An exception a case raised: documented when it is one of ``documented_errors`` (an OSError by
    its errno name), else undocumented."""
    if isinstance(error, OSError) and OSError in documented_errors and error.errno is not None:
        return documented(errno.errorcode.get(error.errno, f"errno {error.errno}"))
    if isinstance(error, documented_errors):
        kind = next((phrase for phrase in KINDS_OF_STOP if str(error).startswith(phrase)), None)
        return documented(type(error).__name__ + (f" ({kind})" if kind else ""))
    return undocumented(error)
