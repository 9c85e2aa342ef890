"""Wave schedules: the order in which the waves of a workgroup advance (`gpubench run --schedule`, the
Python API's ``schedule=``, `gpubench debug --schedule`).

The hardware orders the waves of a workgroup only at its synchronisation points (s_barrier, and what
fences and atomics make visible); code that relies on any other order is wrong, and a schedule that
picks another order makes it give another result:

- lockstep: the waves standing at the lowest PC issue together (the reference engine's own order).
- per-wave: in each workgroup the lowest-numbered running wave runs until it ends or waits at a
  barrier, then the next one.
- reverse: as per-wave, the highest-numbered first.
- random[:SEED]: before every issue, each workgroup's next wave is drawn at random, from numpy's PCG64
  seeded with SEED afresh for every dispatch (a dispatch replays the same interleaving whatever ran
  before it). Without a seed one is drawn; ``str(schedule)`` names it, so a failure reproduces.

Workgroups advance side by side: an issue runs the chosen wave of every workgroup whose chosen wave
stands at the lowest PC among the chosen ones (workgroups share only global memory, where the race
detector, races.py, finds what an order would hide).
"""
from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpubench.emu.waves import Waves

ENV = "GPUBENCH_SCHEDULE"
Pick = Callable[[np.ndarray], tuple[int, np.ndarray]]  # running waves -> (pc, the waves that issue)


def lowest_pc(waves: Waves, candidates: np.ndarray) -> tuple[int, np.ndarray]:
    """The lowest PC among ``candidates`` (wave indices) and those standing at it."""
    pcs = waves.pc[candidates]
    pc = int(pcs.min())
    return pc, candidates[pcs == pc]


# How a schedule ranks the running waves of a workgroup (lowest first): (waves, running, rng) -> ranks.
RANKS: dict[str, Callable[[Waves, np.ndarray, np.random.Generator], np.ndarray]] = {
    "per-wave": lambda w, running, rng: w.wave_id[running],
    "reverse": lambda w, running, rng: -w.wave_id[running],
    "random": lambda w, running, rng: rng.random(len(running)),
}
NAMES = ("lockstep", *RANKS)


@dataclass(frozen=True)
class Schedule:
    name: str  # one of NAMES
    seed: int | None = None  # random's; None for the others

    @classmethod
    def parse(cls, text: str) -> Schedule:
        """``lockstep``, ``per-wave``, ``reverse``, ``random`` (a seed drawn) or ``random:SEED``."""
        name, colon, seed = text.partition(":")
        if name not in NAMES:
            raise ValueError(f"schedule {text!r}: the schedules are {', '.join(NAMES)} (random:SEED)")
        if name != "random":
            if colon:
                raise ValueError(f"schedule {text!r}: only random takes a seed")
            return cls(name)
        try:
            return cls(name, int(seed, 0) if seed else secrets.randbelow(1 << 32))
        except ValueError:
            raise ValueError(f"schedule {text!r}: the seed must be an integer") from None

    def __str__(self) -> str:
        return self.name if self.seed is None else f"{self.name}:{self.seed}"

    def picker(self, waves: Waves) -> Pick:
        """The next issue's choice for one dispatch of ``waves``."""
        if self.name == "lockstep":
            return lambda running: lowest_pc(waves, running)
        rank, rng = RANKS[self.name], np.random.default_rng(self.seed)

        def pick(running: np.ndarray) -> tuple[int, np.ndarray]:
            groups = waves.workgroup[running]
            order = np.lexsort((rank(waves, running, rng), groups))
            ordered = groups[order]
            first = np.ones(len(order), bool)
            first[1:] = ordered[1:] != ordered[:-1]
            return lowest_pc(waves, running[order[first]])
        return pick


LOCKSTEP = Schedule("lockstep")


def configured(environ=os.environ) -> Schedule | None:
    """The schedule GPUBENCH_SCHEDULE asks for; None when unset (the engine's own order)."""
    text = environ.get(ENV)
    return _parsed(text) if text else None


@functools.cache
def _parsed(text: str) -> Schedule:  # once per process: "random" draws one seed, not one per dispatch
    return Schedule.parse(text)
