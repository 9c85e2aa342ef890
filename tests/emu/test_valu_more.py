"""VOP3P integer instructions (packed 16-bit arithmetic, 4- and 8-element dot products) on the emulator
against numpy models written from the RDNA3 ISA manual's descriptions (no use of the emulator's
pseudocode compiler or reference evaluator).

Each test runs one gfx1100 instruction on several wave32 waves whose lanes hold random registers
(edge values mixed in) and compares every lane's result; EXEC disables some lanes, which must keep
their old destination.
"""
import numpy as np
import pytest
from asm_dispatch import run_program

WAVES = 4
A, B, C, DST = 1, 2, 3, 4  # VGPRs: src0, src1, src2, vdst
EDGES = np.array([0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF8000, 0x80007FFF, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F,
                  0x88888888, 0x77777777], np.uint64)


def halves(x: np.ndarray, signed: bool) -> tuple[np.ndarray, np.ndarray]:
    """(bits 15:0, bits 31:16) of uint32 values as int64, sign-extended if ``signed``."""
    low, high = (x & 0xFFFF).astype(np.int64), (x >> 16).astype(np.int64)
    if signed:
        low, high = (np.where(h >= 0x8000, h - 0x10000, h) for h in (low, high))
    return low, high


def packed(fn, signed: bool):
    """A packed 16-bit operation: fn on each half of the sources, each result wrapped to 16 bits."""
    def model(a, b, c):
        results = [fn(*parts) for parts in zip(halves(a, signed), halves(b, signed), halves(c, signed))]
        low, high = ((r & 0xFFFF).astype(np.uint32) for r in results)
        return low | high << 16
    return model


def shift(kind):
    """The shift amount is the low 4 bits of src0's half; src1 is shifted (the *rev forms)."""
    def model(a, b, c):
        out = []
        for amount, value, signed_value in zip(halves(a, False), halves(b, False), halves(b, True)):
            amount = amount & 15
            out.append({"lshl": value << amount, "lshr": value >> amount, "ashr": signed_value >> amount}[kind])
        low, high = ((r & 0xFFFF).astype(np.uint32) for r in out)
        return low | high << 16
    return model


def elements(x: np.ndarray, bits: int, signed: bool) -> list[np.ndarray]:
    """The 32 // bits elements of uint32 values, least significant first, as int64."""
    out = []
    for i in range(32 // bits):
        e = ((x >> (i * bits)) & ((1 << bits) - 1)).astype(np.int64)
        out.append(np.where(e >> (bits - 1) == 1, e - (1 << bits), e) if signed else e)
    return out


def dot(bits: int, signed_a: bool, signed_b: bool):
    """src2 plus the sum of the products of src0's and src1's elements, modulo 2**32."""
    def model(a, b, c):
        total = c.astype(np.int64)
        for x, y in zip(elements(a, bits, signed_a), elements(b, bits, signed_b)):
            total = total + x * y
        return (total & 0xFFFFFFFF).astype(np.uint32)
    return model


MODELS = {
    "v_pk_add_i16": packed(lambda a, b, c: a + b, True),
    "v_pk_sub_i16": packed(lambda a, b, c: a - b, True),
    "v_pk_sub_u16": packed(lambda a, b, c: a - b, False),
    "v_pk_mul_lo_u16": packed(lambda a, b, c: a * b, False),
    "v_pk_mad_i16": packed(lambda a, b, c: a * b + c, True),
    "v_pk_mad_u16": packed(lambda a, b, c: a * b + c, False),
    "v_pk_max_i16": packed(lambda a, b, c: np.maximum(a, b), True),
    "v_pk_min_i16": packed(lambda a, b, c: np.minimum(a, b), True),
    "v_pk_max_u16": packed(lambda a, b, c: np.maximum(a, b), False),
    "v_pk_min_u16": packed(lambda a, b, c: np.minimum(a, b), False),
    "v_pk_lshlrev_b16": shift("lshl"),
    "v_pk_lshrrev_b16": shift("lshr"),
    "v_pk_ashrrev_i16": shift("ashr"),
    "v_dot4_u32_u8": dot(8, False, False),
    "v_dot8_u32_u4": dot(4, False, False),
}
THREE_SOURCES = ("v_pk_mad", "v_dot")
# v_dot*_iu*: neg_lo's bits 0 and 1 make src0's and src1's elements signed
MIXED_SIGN_DOTS = [(name, bits, neg) for name, bits in (("v_dot4_i32_iu8", 8), ("v_dot8_i32_iu4", 4))
                   for neg in ((0, 0), (1, 0), (0, 1), (1, 1))]


def run(text: str, seed: int):
    """Run ``text`` with random A, B, C, DST in every lane and EXEC random per wave: the sources,
    DST's old value, EXEC as bool [waves, lanes], and DST afterwards."""
    rng = np.random.default_rng(seed)
    shape = (WAVES, 32)
    regs = {}
    for reg in (A, B, C, DST):
        values = rng.integers(0, 1 << 32, shape, dtype=np.uint64)
        regs[reg] = np.where(rng.random(shape) < 0.25, rng.choice(EDGES, shape), values).astype(np.uint32)
    active = rng.random(shape) < 0.8

    def setup(ctx):
        for reg, values in regs.items():
            ctx.waves.vgpr[:, reg, :] = values
        ctx.waves.write_mask(126, np.arange(WAVES), active)
    ctx = run_program(text, waves=WAVES, setup=setup)
    return regs, active, ctx.waves.vgpr[:, DST, :]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_packed_and_dot_integer_ops_match_model(name):
    sources = f"v{A}, v{B}, v{C}" if name.startswith(THREE_SOURCES) else f"v{A}, v{B}"
    for seed in range(3):
        regs, active, got = run(f"{name} v{DST}, {sources}", seed)
        want = np.where(active, MODELS[name](regs[A], regs[B], regs[C]), regs[DST])
        bad = np.argwhere(got != want)
        assert bad.size == 0, (f"{name} wave/lane {bad[0]}: sources {[hex(regs[r][tuple(bad[0])]) for r in (A, B, C)]}"
                               f" got {got[tuple(bad[0])]:#x} want {want[tuple(bad[0])]:#x}")


@pytest.mark.parametrize("name,bits,neg", MIXED_SIGN_DOTS)
def test_mixed_sign_dots_read_signedness_from_neg_lo(name, bits, neg):
    text = f"{name} v{DST}, v{A}, v{B}, v{C} neg_lo:[{neg[0]},{neg[1]},0]"
    regs, active, got = run(text, seed=bits + 2 * neg[0] + neg[1])
    want = np.where(active, dot(bits, bool(neg[0]), bool(neg[1]))(regs[A], regs[B], regs[C]), regs[DST])
    assert np.array_equal(got, want)
