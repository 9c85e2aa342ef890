"""What an instruction handler may touch: the waves, memory, LDS, scratch, and the dispatch facts."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gpubench.emu.memory import AddressSpace
from gpubench.emu.waves import Waves
from gpubench.isa.arch import ISA


@dataclass
class Context:
    isa: ISA
    waves: Waves
    memory: AddressSpace
    lds: np.ndarray  # uint8 [workgroups, lds bytes]
    scratch: np.ndarray  # uint8 [waves, lanes, private bytes]: each lane's private segment
    stats: dict = field(default_factory=lambda: {"wave_instructions": 0, "steps": 0, "lane_operations": 0})
    started: float = field(default_factory=time.perf_counter)  # the watchdog's clock: set-up counts too
    races: object = None  # the race detector (races.RaceDetector) when one watches the dispatch


class ExecutionError(RuntimeError):
    """An instruction the emulator cannot execute: names the PC, bytes and disassembly."""
