"""Waves with random state around a piece of code: what the instruction, kernel and memory campaigns
run their cases on, on either engine.

Memory holds the code (read-only) and one data buffer; some SGPR pairs and VGPR lanes point into it,
the rest of the registers are random (special float values included), so a case reaches both mapped
and unmapped memory.
"""
from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpubench.emu import executor, launch
from gpubench.emu.context import Context
from gpubench.emu.memory import AddressSpace
from gpubench.emu.waves import EXEC_LO, Waves
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

# (target, wave size): the four targets, RDNA in both wave sizes, CDNA in its only one
TARGETS = (("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32), ("gfx1201", 64), ("gfx942", 64), ("gfx950", 64))
ENGINES = ("native", "reference")
CODE_BASE = 0x10_0000_0000
DATA_BASE, DATA_BYTES = 0x20_0000_0000, 64 << 10
SPECIAL_WORDS = (0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F800000,
                 0x00000001, 0x807FFFFF, 0xFFFF, 0x7C00, 0xFC00, 0x7E00)
WATCHDOG = executor.Watchdog(max_wave_instructions=20_000, max_seconds=5.0)


@dataclass(frozen=True)
class Setup:
    """Everything a case's waves start from, drawn once from the case's generator."""

    target: str
    wave_size: int
    engine: str
    waves: int
    vgprs: int  # the allocation (.amdhsa_next_free_vgpr granulated), CDNA's AGPRs included
    lds_bytes: int
    private_bytes: int
    seed: int  # of the register contents

    def describe(self) -> str:
        return (f"{self.target} wave{self.wave_size} on the {self.engine} engine, {self.waves} waves, "
                f"{self.vgprs} VGPRs, {self.lds_bytes} B LDS, {self.private_bytes} B scratch")


def draw_setup(rng: random.Random, target: str | None = None, wave_size: int | None = None) -> Setup:
    if target is None:
        target, wave_size = rng.choice(TARGETS)
    full = 512 if ISA.get(target).target.arch == "cdna" else 256
    vgprs = full if rng.random() < 0.6 else rng.randrange(8, full + 1, 8)
    return Setup(target, wave_size, rng.choice(ENGINES), rng.choice((1, 2, 3)), vgprs,
                 rng.choice((0, 256, 4096, 65536)), rng.choice((0, 16, 256)), rng.getrandbits(32))


def endpgm(target: str) -> bytes:
    return assemble(ISA.get(target), "s_endpgm").data


def _random_words(gen: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    words = gen.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    special = gen.random(shape) < 0.2
    words[special] = gen.choice(np.array(SPECIAL_WORDS, np.uint32), int(special.sum()))
    return words


def context(setup: Setup, code: bytes) -> Context:
    """Waves at the start of ``code`` (followed by s_endpgm) with random registers."""
    isa = ISA.get(setup.target, setup.wave_size)
    memory = AddressSpace()
    memory.map(CODE_BASE, np.frombuffer(code + endpgm(setup.target) * 4, np.uint8).copy(), writable=False,
               name="code")
    memory.map(DATA_BASE, DATA_BYTES, name="data")
    gen = np.random.default_rng(setup.seed)
    memory.find(DATA_BASE).data[:] = gen.integers(0, 256, DATA_BYTES, dtype=np.uint8)
    accum = setup.vgprs // 2 if isa.target.arch == "cdna" else None
    waves = Waves.create(setup.waves, setup.wave_size, setup.vgprs, accum)
    waves.sgpr[:] = _random_words(gen, waves.sgpr.shape)
    waves.vgpr[:] = _random_words(gen, waves.vgpr.shape)
    for pair in range(0, 16, 2):  # s[0:1] ... s[14:15]: pointers into the data buffer
        waves.sgpr[:, pair] = DATA_BASE & 0xFFFFFFFF
        waves.sgpr[:, pair + 1] = DATA_BASE >> 32
    lanes = gen.random(waves.vgpr.shape[1:]) < 0.5  # half the VGPRs' lanes: small offsets
    waves.vgpr[:, lanes] &= np.uint32(DATA_BYTES - 4)
    every = np.arange(setup.waves)
    waves.write_mask(EXEC_LO, every, gen.random((setup.waves, setup.wave_size)) < 0.9)
    waves.pc[:] = CODE_BASE
    waves.wave_id[:] = every
    lds = np.zeros((1, max(1, setup.lds_bytes)), np.uint8)
    scratch = np.zeros((setup.waves, setup.wave_size, setup.private_bytes), np.uint8)
    return Context(isa, waves, memory, lds, scratch)


def run(setup: Setup, code: bytes, prepare: Callable[[Context], None] | None = None) -> None:
    """Run ``code`` to its end on the setup's engine (``prepare`` may set registers first); raises
    what the dispatch raises."""
    ctx = context(setup, code)
    if prepare is not None:
        prepare(ctx)
    os.environ["GPUBENCH_ENGINE"] = setup.engine  # a worker process's own environment
    launch.run(ctx, WATCHDOG)
