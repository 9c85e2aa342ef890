"""Memory at bad addresses: one access of each space (global, flat, scratch, LDS, buffer, SMEM) with
addresses, offsets and buffer descriptors drawn from the edges: the ends of the data buffer, unmapped
pages, the apertures, 2^47, 2^63, 2^64 - k, offsets past the LDS or scratch size. The outcome is a
value, a dropped access (out-of-range LDS or buffer records) or a GPUPageFault, on either engine."""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from gpubench.emu.context import Context, ExecutionError
from gpubench.emu.ops.segments import PRIVATE_BASE, SHARED_BASE
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble
from tools.fuzzing import machine
from tools.fuzzing.campaign import Campaign
from tools.fuzzing.outcome import Outcome, ran

TOP = 2**64
EDGES = (0, 4, machine.DATA_BASE, machine.DATA_BASE + machine.DATA_BYTES - 4, machine.DATA_BASE + machine.DATA_BYTES,
         machine.DATA_BASE - 4, SHARED_BASE, SHARED_BASE + (1 << 32) - 4, PRIVATE_BASE, PRIVATE_BASE + (1 << 32) - 4,
         1 << 47, (1 << 47) - 4, 1 << 63, TOP - 4, TOP - 8, TOP - 1, machine.CODE_BASE)
STRIDES = (0, 1, 4, 8, 4096, 1 << 20, 1 << 32, TOP - 4)
# (space, template) by ISA family; {imm} fields are filled from the case's generator
TEMPLATES = {
    "rdna3": {
        "global": ("global_load_b32 v10, v[2:3], off offset:{simm13}", "global_store_b64 v[2:3], v[10:11], off",
                   "global_load_b128 v[10:13], v2, s[4:5] offset:{simm13}",
                   "global_atomic_add_u32 v10, v[2:3], v11, off glc"),
        "flat": ("flat_load_b32 v10, v[2:3] offset:{imm12}", "flat_store_b32 v[2:3], v10",
                 "flat_atomic_add_u32 v10, v[2:3], v11 glc", "flat_load_b64 v[10:11], v[2:3]"),
        "scratch": ("scratch_load_b32 v10, v2, off offset:{simm13}", "scratch_store_b64 v2, v[10:11], off",
                    "scratch_load_b32 v10, off, s4 offset:{simm13}", "scratch_store_b32 off, v10, s4"),
        "lds": ("ds_load_b32 v10, v2 offset:{imm16}", "ds_store_b64 v2, v[10:11]",
                "ds_load_2addr_b32 v[10:11], v2 offset0:{imm8} offset1:{imm8}", "ds_add_u32 v2, v10",
                "ds_load_b128 v[10:13], v2"),
        "buffer": ("buffer_load_b32 v10, v2, s[8:11], s4 offen offset:{imm12}",
                   "buffer_store_b32 v10, v[2:3], s[8:11], 0 idxen offen", "buffer_load_b32 v10, off, s[8:11], s4",
                   "buffer_atomic_add_u32 v10, v2, s[8:11], 0 offen glc"),
        "smem": ("s_load_b32 s20, s[4:5], {simm21}", "s_load_b256 s[20:27], s[4:5], s6",
                 "s_buffer_load_b32 s20, s[8:11], {imm20}", "s_load_b64 s[20:21], s[4:5], -4"),
    },
    "cdna": {
        "global": ("global_load_dword v10, v[2:3], off offset:{simm13}", "global_store_dwordx2 v[2:3], v[10:11], off",
                   "global_load_dwordx4 v[10:13], v2, s[4:5] offset:{simm13}",
                   "global_atomic_add v10, v[2:3], v11, off sc0"),
        "flat": ("flat_load_dword v10, v[2:3] offset:{imm12}", "flat_store_dword v[2:3], v10",
                 "flat_atomic_add v10, v[2:3], v11 sc0", "flat_load_dwordx2 v[10:11], v[2:3]"),
        "scratch": ("scratch_load_dword v10, v2, off offset:{simm13}", "scratch_store_dwordx2 v2, v[10:11], off",
                    "scratch_load_dword v10, off, s4 offset:{simm13}", "scratch_store_dword off, v10, s4"),
        "lds": ("ds_read_b32 v10, v2 offset:{imm16}", "ds_write_b64 v2, v[10:11]",
                "ds_read2_b32 v[10:11], v2 offset0:{imm8} offset1:{imm8}", "ds_add_u32 v2, v10",
                "ds_read_b128 v[10:13], v2"),
        "buffer": ("buffer_load_dword v10, v2, s[8:11], s4 offen offset:{imm12}",
                   "buffer_store_dword v10, v[2:3], s[8:11], 0 idxen offen", "buffer_load_dword v10, off, s[8:11], s4",
                   "buffer_atomic_add v10, v2, s[8:11], 0 offen sc0"),
        "smem": ("s_load_dword s20, s[4:5], {imm20}", "s_load_dwordx8 s[20:27], s[4:5], s6",
                 "s_buffer_load_dword s20, s[8:11], {imm20}", "s_load_dwordx2 s[20:21], s[4:5], -4"),
    },
}
FIELDS = {"simm13": lambda r: r.randint(-4096, 4095), "imm12": lambda r: r.randrange(4096),
          "imm16": lambda r: r.randrange(65536), "imm8": lambda r: r.randrange(256),
          "simm21": lambda r: r.randint(-(1 << 20), (1 << 20) - 1), "imm20": lambda r: r.randrange(1 << 20)}
TARGETS = (("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64))


def address(rng: random.Random) -> int:
    return (rng.choice(EDGES) + rng.choice((0, 0, rng.randrange(-64, 64), rng.getrandbits(64)))) % TOP


@dataclass(frozen=True)
class Case:
    setup: machine.Setup
    space: str
    text: str
    base: int  # v[2:3] of lane 0 (v2 alone: its low half), s[4:5]
    stride: int  # bytes between lanes' addresses
    scalar: tuple[int, ...]  # s4, s6, m0
    descriptor: tuple[int, int, int, int]  # s[8:11]


def make(rng: random.Random) -> Case:
    target, wave_size = rng.choice(TARGETS)
    setup = machine.draw_setup(rng, target, wave_size)
    space = rng.choice(list(TEMPLATES["rdna3"]))
    template = rng.choice(TEMPLATES[ISA.get(target).target.arch][space])
    text = template.format(**{name: make_field(rng) for name, make_field in FIELDS.items()})
    base = address(rng)
    scalar = tuple(rng.choice((0, 4, 0xFFFFFFFC, 0x80000000, rng.getrandbits(32))) for _ in range(3))
    descriptor = (base & 0xFFFFFFFF, ((base >> 32) & 0xFFFF) | (rng.getrandbits(16) << 16),
                  rng.choice((0, 1, 16, 0xFFFFFFFF, rng.getrandbits(32))), rng.getrandbits(32))
    return Case(setup, space, text, base, rng.choice(STRIDES), scalar, descriptor)


def describe(case: Case) -> str:
    return (f"`{case.text}` with v[2:3] = 0x{case.base:x} + lane * 0x{case.stride:x}, s[4:5] = 0x{case.base:x}, "
            f"s4/s6/m0 = {', '.join(hex(v) for v in case.scalar)}, s[8:11] = "
            f"{', '.join(hex(v) for v in case.descriptor)}; {case.setup.describe()}")


def run(case: Case) -> Outcome:
    code = assemble(ISA.get(case.setup.target, case.setup.wave_size), case.text).data

    def prepare(ctx: Context) -> None:
        w = ctx.waves
        lanes = (case.base + np.arange(w.wave_size, dtype=object) * case.stride) % TOP
        w.vgpr[:, 2, :] = np.array([a & 0xFFFFFFFF for a in lanes], np.uint32)
        w.vgpr[:, 3, :] = np.array([a >> 32 for a in lanes], np.uint32)
        w.sgpr[:, 4], w.sgpr[:, 5] = case.base & 0xFFFFFFFF, case.base >> 32
        if case.space in ("scratch", "buffer"):  # s4 is an offset there, a base's low half elsewhere
            w.sgpr[:, 4] = case.scalar[0]
        w.sgpr[:, 6], w.sgpr[:, 124] = case.scalar[1], case.scalar[2]
        w.sgpr[:, 8:12] = case.descriptor

    machine.run(case.setup, code, prepare)
    return ran()


CAMPAIGN = Campaign("memory", "memory at bad addresses (global, flat, scratch, LDS, buffer, SMEM)", make, run,
                    describe, (ExecutionError,), timeout=60.0)
