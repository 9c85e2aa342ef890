"""Single instructions: a word from LLVM's corpus, a random word LLVM accepted, or a corpus word with
bits flipped that our decoder accepts, run by a few waves with random registers on a random target,
wave size and engine.
"""
from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass

from gpubench.emu.context import ExecutionError
from gpubench.isa import corpus
from gpubench.isa.arch import ISA
from gpubench.isa.decoder import DecodeError, decode
from gpubench.isa.disasm import disassemble_at
from tools.fuzzing import machine
from tools.fuzzing.campaign import Campaign
from tools.fuzzing.outcome import Outcome, ran

MUTATION_TRIES = 16


@functools.cache
def corpus_words(target: str, wave_size: int) -> tuple[bytes, ...]:
    return tuple(bytes.fromhex(e["bytes"]) for e in corpus.load_entries(target) if e["wave"] in (None, wave_size))


@functools.cache
def accepted_random_words(target: str) -> tuple[bytes, ...]:
    with open(corpus.DEFAULT_DIR / f"{target}.random.jsonl") as f:
        entries = [json.loads(line) for line in f if line.strip()]
    return tuple(bytes.fromhex(e["bytes"])[:e["length"]] for e in entries if e["text"] is not None)


def mutated(rng: random.Random, isa: ISA, word: bytes) -> bytes:
    """``word`` with a few random bits flipped, the first such word our decoder accepts (or ``word``)."""
    for _ in range(MUTATION_TRIES):
        data = bytearray(word.ljust(12, bytes([rng.getrandbits(8)])))
        for _ in range(rng.randint(1, 4)):
            bit = rng.randrange(8 * len(data))
            data[bit // 8] ^= 1 << (bit % 8)
        try:
            return decode(isa, bytes(data)).bytes
        except DecodeError:
            continue
    return word


@dataclass(frozen=True)
class Case:
    setup: machine.Setup
    word: bytes
    source: str  # corpus, llvm-random, mutated


def make(rng: random.Random) -> Case:
    setup = machine.draw_setup(rng)
    roll = rng.random()
    if roll < 0.4:
        return Case(setup, rng.choice(corpus_words(setup.target, setup.wave_size)), "corpus")
    if roll < 0.6:
        return Case(setup, rng.choice(accepted_random_words(setup.target)), "llvm-random")
    isa = ISA.get(setup.target, setup.wave_size)
    return Case(setup, mutated(rng, isa, rng.choice(corpus_words(setup.target, setup.wave_size))), "mutated")


def describe_word(setup: machine.Setup, word: bytes) -> str:
    """``word`` in hex with its text (or why the disassembler rejects it)."""
    try:
        text = disassemble_at(ISA.get(setup.target, setup.wave_size), word)[1]
    except DecodeError as e:
        text = f"<the disassembler rejects it: {e.reason}>"
    return f"{word.hex()} `{text}`"


def describe(case: Case) -> str:
    return f"{describe_word(case.setup, case.word)} ({case.source}); {case.setup.describe()}"


def run(case: Case) -> Outcome:
    machine.run(case.setup, case.word)
    return ran()


CAMPAIGN = Campaign("instructions", "single instructions (corpus + random accepted words; 4 targets, wave32/64)",
                    make, run, describe, (ExecutionError, DecodeError), timeout=60.0)
