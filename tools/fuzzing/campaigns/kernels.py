"""Random ALU kernels: a few to a few dozen scalar and vector ALU instructions from LLVM's corpus
(DPP, SDWA, VOPD, literals and program-flow instructions among them), run by several waves with
random registers on a random target, wave size and engine."""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from gpubench.emu.context import ExecutionError
from gpubench.isa import corpus
from tools.fuzzing import machine
from tools.fuzzing.campaign import Campaign
from tools.fuzzing.campaigns.instructions import describe_word
from tools.fuzzing.outcome import Outcome, ran

ALU_FORMATS = ("SOP1", "SOP2", "SOPC", "SOPK", "VOP1", "VOP2", "VOP3", "VOPC", "VOP3P", "VOPD")
PROGRAM_FLOW = "SOPP"  # branches, waits, s_endpgm ...: one in PROGRAM_FLOW_SHARE of the instructions
PROGRAM_FLOW_SHARE = 0.05
MAX_INSTRUCTIONS = 32


@functools.cache
def alu_words(target: str, wave_size: int, flow: bool) -> tuple[bytes, ...]:
    wanted = (PROGRAM_FLOW,) if flow else ALU_FORMATS
    return tuple(bytes.fromhex(e["bytes"]) for e in corpus.load_entries(target)
                 if e["format"].split("_")[0] in wanted and e["wave"] in (None, wave_size))


@dataclass(frozen=True)
class Case:
    setup: machine.Setup
    words: tuple[bytes, ...]


def make(rng: random.Random) -> Case:
    setup = machine.draw_setup(rng)
    words = tuple(rng.choice(alu_words(setup.target, setup.wave_size, rng.random() < PROGRAM_FLOW_SHARE))
                  for _ in range(rng.randint(2, MAX_INSTRUCTIONS)))
    return Case(setup, words)


def describe(case: Case) -> str:
    listing = "; ".join(describe_word(case.setup, word) for word in case.words)
    return f"{case.setup.describe()}: {listing}"


def run(case: Case) -> Outcome:
    machine.run(case.setup, b"".join(case.words))
    return ran()


CAMPAIGN = Campaign("kernels", "random ALU kernels", make, run, describe, (ExecutionError,), timeout=60.0)
